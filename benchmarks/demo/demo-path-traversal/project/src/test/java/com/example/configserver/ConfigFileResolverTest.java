package com.example.configserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileResolverTest {

    @TempDir
    Path dir;

    private ConfigFileResolver resolver;

    @BeforeEach
    void createRepository() throws IOException {
        Path repo = Files.createDirectories(dir.resolve("repo"));
        Files.writeString(repo.resolve("application.yml"), "server.port: 8080\n");
        Files.createDirectories(repo.resolve("billing"));
        Files.writeString(repo.resolve("billing/production.yml"), "currency: EUR\n");
        Files.writeString(repo.resolve("greeting.txt"), "Grüße aus Köln\n");
        Files.createDirectories(dir.resolve("outside"));
        Files.writeString(dir.resolve("outside/secret.txt"), "db.password=hunter2\n");
        resolver = new ConfigFileResolver(repo);
    }

    @Test
    void refusesPathsThatLeaveTheRepository() {
        String leaked;
        try {
            leaked = resolver.read("billing/../../outside/secret.txt");
        } catch (SecurityException | IllegalArgumentException | IOException refused) {
            return;
        }
        fail("served a file outside the repository: " + leaked);
    }

    @Test
    void readsFileAtTheRoot() throws IOException {
        assertEquals("server.port: 8080\n", resolver.read("application.yml"));
    }

    @Test
    void readsNestedFile() throws IOException {
        assertEquals("currency: EUR\n", resolver.read("billing/production.yml"));
    }

    @Test
    void readsUtf8Text() throws IOException {
        assertEquals("Grüße aus Köln\n", resolver.read("greeting.txt"));
    }

    @Test
    void allowsDotSegmentsThatStayInside() throws IOException {
        assertEquals("server.port: 8080\n", resolver.read("billing/../application.yml"));
    }

    @Test
    void missingFileIsNoSuchFile() {
        assertThrows(NoSuchFileException.class, () -> resolver.read("billing/staging.yml"));
    }

    @Test
    void rejectsAbsolutePath() {
        assertThrows(IllegalArgumentException.class, () -> resolver.read("/etc/hostname"));
    }
}
