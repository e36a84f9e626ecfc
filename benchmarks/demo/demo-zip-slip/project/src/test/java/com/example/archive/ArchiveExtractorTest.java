package com.example.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchiveExtractorTest {

    @TempDir
    Path dir;

    private final ArchiveExtractor extractor = new ArchiveExtractor();

    /** Builds a zip in memory; a name ending in '/' becomes a directory entry. */
    private static InputStream zip(String... namesAndContents) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes)) {
            for (int i = 0; i < namesAndContents.length; i += 2) {
                out.putNextEntry(new ZipEntry(namesAndContents[i]));
                out.write(namesAndContents[i + 1].getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return new ByteArrayInputStream(bytes.toByteArray());
    }

    @Test
    void doesNotWriteOutsideTheDestination() throws IOException {
        Path destination = dir.resolve("plugins/report");
        try {
            extractor.extract(zip("plugin.properties", "name=report\n", "../../evil.sh", "echo owned\n"), destination);
        } catch (IOException refused) {
            // refusing the whole archive is a fine answer
        }
        assertFalse(Files.exists(dir.resolve("evil.sh")), "an entry was written outside the destination directory");
    }

    @Test
    void extractsFilesAndDirectories() throws IOException {
        Path destination = dir.resolve("out");
        extractor.extract(zip("docs/", "", "docs/readme.txt", "hello\n", "lib/core.jar", "JAR"), destination);
        assertTrue(Files.isDirectory(destination.resolve("docs")));
        assertEquals("hello\n", Files.readString(destination.resolve("docs/readme.txt")));
        assertEquals("JAR", Files.readString(destination.resolve("lib/core.jar")));
    }

    @Test
    void returnsWrittenFilesInArchiveOrder() throws IOException {
        Path destination = dir.resolve("out");
        List<Path> written = extractor.extract(zip("b.txt", "2", "a/c.txt", "3"), destination);
        Path root = destination.toAbsolutePath().normalize();
        assertEquals(List.of(root.resolve("b.txt"), root.resolve("a/c.txt")), written);
    }

    @Test
    void replacesExistingFiles() throws IOException {
        Path destination = Files.createDirectories(dir.resolve("out"));
        Files.writeString(destination.resolve("config.txt"), "old");
        extractor.extract(zip("config.txt", "new"), destination);
        assertEquals("new", Files.readString(destination.resolve("config.txt")));
    }

    @Test
    void createsMissingParentDirectories() throws IOException {
        Path destination = dir.resolve("out");
        extractor.extract(zip("a/b/c/d.txt", "deep"), destination);
        assertEquals("deep", Files.readString(destination.resolve("a/b/c/d.txt")));
    }
}
