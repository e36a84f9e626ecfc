package com.example.configserver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Serves plain-text configuration files from a repository directory, the way a configuration
 * server answers {@code GET /{application}/{profile}/{label}/{path}} with a file of its backing
 * store. Requests may only reach files below the repository root.
 */
public final class ConfigFileResolver {

    private final Path root;

    public ConfigFileResolver(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** Returns the file that a request names by a path relative to the repository root. */
    public Path resolve(String requestedPath) throws IOException {
        if (requestedPath.isEmpty() || requestedPath.startsWith("/")) {
            throw new IllegalArgumentException("path must be relative and not empty: '" + requestedPath + "'");
        }
        Path candidate = root.resolve(requestedPath);
        if (!candidate.startsWith(root)) {
            throw new SecurityException("path leaves the repository: " + requestedPath);
        }
        if (!Files.isRegularFile(candidate)) {
            throw new NoSuchFileException(requestedPath);
        }
        return candidate;
    }

    /** Reads the file that a request names, as UTF-8 text. */
    public String read(String requestedPath) throws IOException {
        return Files.readString(resolve(requestedPath), StandardCharsets.UTF_8);
    }
}
