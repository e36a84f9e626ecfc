package avrlab.difftest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The scratch folder of one call, for inputs that name files: a small tree (a resolver root with
 * the test's file names in it, a sibling folder that shares the root's name as a prefix, a parent
 * with the same names) made fresh for every call, and listed after it, so files a version writes
 * or leaves are part of what it shows.
 */
final class Scratch {
    static final String ROOT = "d1/d2/d3/root";
    static final String SIBLING = "root-sibling";
    /** Where a generated Path or File points, relative to the scratch folder. */
    static final List<String> PLACES = List.of(ROOT, ROOT + "/sub", "d1/d2/d3/fresh");
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*");

    private Scratch() {
    }

    /** The literals that read as relative file names (no `..`, not absolute), at most eight. */
    static List<String> fileNames(List<String> literals) {
        List<String> out = new ArrayList<>();
        for (String literal : literals) {
            if (literal.length() <= 80 && FILE_NAME.matcher(literal).matches() && literal.contains(".")
                    && !literal.contains("..") && !literal.startsWith(".") && out.size() < 8) {
                out.add(literal);
            }
        }
        return out;
    }

    static void populate(Path scratch, List<String> names) throws IOException {
        for (String place : List.of(ROOT, ROOT + "/sub", "d1/d2/d3/" + SIBLING, "d1/d2")) {
            Path dir = Files.createDirectories(scratch.resolve(place));
            for (String name : names) {
                Path file = dir.resolve(name);
                Files.createDirectories(file.getParent());
                Files.writeString(file, place + "/" + name + "\n", StandardCharsets.UTF_8);
            }
        }
    }

    /** Every file and folder under the scratch folder, with each file's size and first bytes. */
    static String list(Path scratch) {
        if (!Files.isDirectory(scratch)) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        try (Stream<Path> walk = Files.walk(scratch)) {
            for (Path path : walk.sorted().toList()) {
                String name = scratch.relativize(path).toString();
                if (Files.isDirectory(path)) {
                    out.append(name).append("/ ");
                } else {
                    byte[] bytes = Files.readAllBytes(path);
                    byte[] head = java.util.Arrays.copyOf(bytes, Math.min(bytes.length, 32));
                    out.append(name).append('(').append(bytes.length).append(':').append(Observe.hex(head)).append(") ");
                }
            }
        } catch (IOException | RuntimeException e) {
            out.append("(unlistable: ").append(e.getClass().getName()).append(')');
        }
        return out.toString();
    }

    static void delete(Path scratch) {
        if (!Files.exists(scratch)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(scratch)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | RuntimeException e) {
            // Left behind: the next call gets a folder of another name.
        }
    }
}
