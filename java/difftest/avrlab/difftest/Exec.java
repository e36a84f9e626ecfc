package avrlab.difftest;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.ObjectInputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The candidate's JVM. It is started like a test JVM — the candidate's classes on the class path,
 * loaded by the application class loader from a folder of classes, nothing else of the tester's in
 * their way — in a sandbox of its own that holds neither the fix's nor the vulnerable state's code,
 * and it answers the tester ({@link Main}) over two named pipes: for each input the tester sends,
 * what the candidate's version showed, as canonical forms. It never sees what the other versions
 * showed, so it cannot make its answer agree with theirs; a candidate that tampers with this JVM
 * can only misdescribe itself, and an answer out of protocol is a divergence.
 *
 * Usage: {@code Exec REQUEST}, a file of tab-separated lines written by avrlab: {@code to} and
 * {@code from} (the pipes), {@code dir} (the folder whose {@code plain} the tester fills with the
 * compiled candidate and whose {@code classes} is on this JVM's class path), {@code call_ms},
 * {@code string} (the task's literals: the probes and file names), {@code changed} (the lines whose
 * coverage is measured), {@code tester} (class-path entries that are the tester's, not the project's).
 * The tester then sends {@code go}, {@code call SEQ INPUT} (a serialized input, base64) and
 * {@code coverage}; this JVM answers {@code ready}, {@code obs SEQ OBSERVATION} and
 * {@code coverage WITH_CODE REACHED}.
 */
public final class Exec {
    private Exec() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, List<List<String>>> request = Main.read(Path.of(args[0]));
        Path dir = Path.of(Main.one(request, "dir"));
        long callMillis = Long.parseLong(Main.one(request, "call_ms"));
        List<String> literals = new ArrayList<>();
        for (List<String> line : request.getOrDefault("string", List.of())) {
            literals.add(line.get(0));
        }
        Map<String, Set<Integer>> changedLines = new LinkedHashMap<>();
        for (List<String> line : request.getOrDefault("changed", List.of())) {
            changedLines.computeIfAbsent(line.get(0), k -> new TreeSet<>()).add(Integer.parseInt(line.get(1)));
        }
        List<URL> tester = new ArrayList<>();
        for (List<String> line : request.getOrDefault("tester", List.of())) {
            tester.add(Path.of(line.get(0)).toUri().toURL());
        }
        // The pipes are opened in the tester's order (its input first), so neither side waits for ever.
        BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(Main.one(request, "to")),
                StandardCharsets.UTF_8));
        OutputStream out = new FileOutputStream(Main.one(request, "from"));
        if (!"go".equals(in.readLine())) {
            Runtime.getRuntime().halt(0);
        }
        Path plain = dir.resolve("plain");
        Path classes = dir.resolve("classes");
        Coverage coverage = null;
        if (!changedLines.isEmpty()) {
            try {
                coverage = Coverage.instrument(plain, classes, changedLines);
            } catch (Throwable e) {
                // A project whose libraries clash with the coverage library's: no coverage, same calls.
                coverage = null;
            }
        }
        if (coverage == null) {
            Main.copy(plain, classes);
        }
        ClassLoader app = ClassLoader.getSystemClassLoader();
        Invocation.Version candidate = new Invocation.Version("candidate", app, type -> type.getClassLoader() == app
                && !tester.contains(location(type)));
        Observe.Capture.install();
        Canon.probeWith(literals);
        List<String> fileNames = Scratch.fileNames(literals);
        Path scratchRoot = Files.createDirectories(dir.resolve("scratch"));
        send(out, "ready");
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ", 3);
            if (parts[0].equals("call") && parts.length == 3) {
                Inputs.Input input;
                try (ObjectInputStream stream = new ObjectInputStream(
                        new ByteArrayInputStream(Base64.getDecoder().decode(parts[2])))) {
                    input = (Inputs.Input) stream.readObject();
                }
                Observation shown = Invocation.execute(candidate, input, scratchRoot.resolve("input-" + parts[1]), fileNames,
                        callMillis);
                send(out, "obs " + parts[1] + " " + shown.wire());
            } else if (parts[0].equals("coverage")) {
                long[] reached = coverage == null ? null : coverage.reached();
                send(out, reached == null ? "coverage none" : "coverage " + reached[0] + " " + reached[1]);
            } else {
                break;
            }
        }
        // Threads the candidate's code left running end here.
        Runtime.getRuntime().halt(0);
    }

    private static void send(OutputStream out, String line) throws java.io.IOException {
        synchronized (out) {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** Where a class was loaded from (null: nowhere a class path names, such as a proxy's). */
    private static URL location(Class<?> type) {
        java.security.CodeSource source = type.getProtectionDomain().getCodeSource();
        return source == null ? null : source.getLocation();
    }
}
