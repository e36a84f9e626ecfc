package com.example.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** Unpacks zip archives, such as uploaded plugin bundles, into a destination directory. */
public final class ArchiveExtractor {

    /**
     * Extracts every entry of a zip archive below {@code destination}, replacing files that
     * already exist, and returns the files it wrote in archive order.
     */
    public List<Path> extract(InputStream zip, Path destination) throws IOException {
        Path root = destination.toAbsolutePath().normalize();
        Files.createDirectories(root);
        List<Path> written = new ArrayList<>();
        try (ZipInputStream in = new ZipInputStream(zip)) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                Path target = root.resolve(entry.getName());
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                    continue;
                }
                Files.createDirectories(target.getParent());
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                written.add(target);
            }
        }
        return written;
    }
}
