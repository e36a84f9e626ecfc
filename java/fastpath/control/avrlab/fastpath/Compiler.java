package avrlab.fastpath;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The fast path's compiler: one long-lived JVM per JDK, shared by the task states that build with
 * it, that compiles each candidate's changed source files and writes the class files into the
 * folder of the test JVM that will run them. It never executes project or candidate code: javac runs with annotation processing off,
 * and nothing it compiled is loaded here. Main sources compile against the main class path (the
 * compiled task state and the compile-scope dependencies), as Maven's compiler plug-in does, so a
 * main class that uses a test-scoped library does not compile here either.
 *
 * <p>Requests: {@code COMPILE seq release classes project mainClasspath testClasspath sources
 * outdir removed leftOut}, each naming its task state; each answer is one authenticated frame.
 * {@code removed} are the project's files the candidate deletes or moves away, {@code leftOut}
 * those under the source roots that Maven's compiler plug-in does not compile (its includes,
 * excludes and default excludes, as the host reads them): neither is ever compiled here.
 */
public final class Compiler {
    private Compiler() {}

    /** Packages a candidate may not define: the test framework's and this helper's. */
    static final String[] FRAMEWORK_PACKAGES = {
        "java.", "javax.", "jdk.", "sun.", "org.junit.", "junit.", "org.opentest4j.",
        "org.apiguardian.", "avrlab."
    };

    private static int release;
    private static Path classes;
    private static Path project;
    private static List<Path> mainClasspath;
    private static List<Path> testClasspath;

    public static void main(String[] args) throws Exception {
        InputStream requests = System.in;
        System.setIn(InputStream.nullInputStream());
        // javac writes nothing on its own here, but nothing may reach the channel's descriptor.
        PrintStream quiet = new PrintStream(OutputStreamSink.INSTANCE, true, StandardCharsets.UTF_8);
        System.setOut(quiet);
        Channel channel = new Channel(requests);
        String[] f;
        while ((f = channel.next()) != null) {
            switch (f[0]) {
                case "SETUP":
                    break;
                case "COMPILE": {
                    long seq = Long.parseLong(f[1]);
                    release = Integer.parseInt(f[2]);
                    classes = Path.of(f[3]);
                    project = Path.of(f[4]);
                    mainClasspath = paths(f[5]);
                    testClasspath = paths(f[6]);
                    List<String> payload = new ArrayList<>();
                    Set<Path> notCompiled = new HashSet<>();
                    String[] removed = f.length > 9 ? Channel.split(f[9]) : new String[0];
                    for (String[] list : new String[][] {removed,
                            f.length > 10 ? Channel.split(f[10]) : new String[0]}) {
                        for (String file : list) {
                            notCompiled.add(Path.of(file).normalize());
                        }
                    }
                    try {
                        compile(Channel.split(f[7]), Path.of(f[8]), removed, notCompiled, payload);
                    } catch (Exception | StackOverflowError | OutOfMemoryError e) {
                        // A candidate's text can exhaust javac; Maven decides then.
                        payload.clear();
                        payload.add("FALLBACK\t" + Channel.hex("the fast path's compiler failed: " + e));
                    }
                    channel.send("FRAME", seq, payload);
                    break;
                }
                default:
                    return;
            }
        }
    }

    private static List<Path> paths(String joined) {
        List<Path> out = new ArrayList<>();
        for (String entry : joined.split(":")) {
            if (!entry.isEmpty()) {
                out.add(Path.of(entry));
            }
        }
        return out;
    }

    private static List<Path> with(Path first, List<Path> rest) {
        List<Path> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }

    /**
     * Compiles one candidate's files into {@code outdir} (the test JVM's target/classes; test
     * classes of a full recompilation into the {@code test-classes} folder beside it); the
     * answer's lines go to {@code out}.
     */
    private static void compile(String[] sources, Path outdir, String[] removed,
            Set<Path> notCompiled, List<String> out) throws Exception {
        long t0 = System.nanoTime();
        Map<String, byte[]> compiled = new HashMap<>();
        List<String> diagnostics = new ArrayList<>();
        String problem = Compile.compile(sources, with(classes, mainClasspath), release, compiled,
                diagnostics);
        if (problem != null) {
            out.add("FALLBACK\t" + Channel.hex(problem));
            return;
        }
        if (!diagnostics.isEmpty()) {
            StringBuilder line = new StringBuilder("COMPILE\terror\t" + millis(t0));
            for (String d : diagnostics) {
                line.append('\t').append(Channel.hex(d));
            }
            out.add(line.toString());
            return;
        }
        for (String name : compiled.keySet()) {
            if (isFramework(name)) {
                out.add("FALLBACK\t" + Channel.hex("the candidate defines " + name
                        + ", a class in a framework package"));
                return;
            }
        }
        // Other classes (tests above all) were compiled against the task state's classes: when
        // the candidate changes what they see (a renamed method, a new constant value that javac
        // inlined), they are stale, and Maven would recompile them. So does this: every main
        // source against the main class path, then every test source against those classes and
        // the test class path, the candidate's files in place of their originals.
        String note = "";
        Map<String, byte[]> recompiledTests = Map.of();
        String changedApi = Api.changed(compiled, classes);
        if (changedApi == null && removed.length > 0) {
            // The removed file's classes must be gone for the project's other sources too: they
            // are compiled without them, as Maven's build of the candidate's tree would.
            List<String> named = new ArrayList<>();
            for (String file : removed) {
                named.add(project.relativize(Path.of(file)).toString());
            }
            changedApi = "the candidate deletes or moves " + String.join(", ", named);
        }
        boolean all = changedApi != null;
        if (all) {
            List<String> mainSources = new ArrayList<>();
            List<String> testSources = new ArrayList<>();
            String missing = projectSources(sources, notCompiled, mainSources, testSources);
            if (missing != null) {
                out.add("FALLBACK\t" + Channel.hex(changedApi + ", and " + missing));
                return;
            }
            Map<String, byte[]> mainClasses = new HashMap<>();
            List<String> errors = new ArrayList<>();
            problem = Compile.compile(mainSources.toArray(new String[0]), mainClasspath, release,
                    mainClasses, errors);
            Map<String, byte[]> testClasses = new HashMap<>();
            if (problem == null && errors.isEmpty()) {
                write(mainClasses, outdir);
                problem = Compile.compile(testSources.toArray(new String[0]),
                        with(outdir, testClasspath), release, testClasses, errors);
            }
            if (problem != null || !errors.isEmpty()) {
                // Maven decides whether the project still compiles (its compiler settings, not
                // these): a compilation error here is a reason to ask it, not a verdict.
                out.add("FALLBACK\t" + Channel.hex(changedApi + ", and the project's sources do"
                        + " not compile against it in memory: "
                        + (problem != null ? problem : errors.get(0))));
                return;
            }
            compiled = mainClasses;
            recompiledTests = testClasses;
            note = changedApi + ": " + (mainSources.size() + testSources.size())
                    + " main and test sources recompiled in memory";
        }
        write(compiled, outdir);
        // Recompiled test classes go where the test JVM sees target/test-classes (the folder
        // beside outdir), as Maven's build writes them.
        write(recompiledTests, outdir.resolveSibling("test-classes"));
        out.add("COMPILE\tok\t" + millis(t0) + "\t" + Channel.hex(note));
        List<String> names = new ArrayList<>(compiled.keySet());
        names.addAll(recompiledTests.keySet());
        Collections.sort(names);
        out.add("CLASSES\t" + (all ? "all" : "some") + "\t"
                + Channel.hex(String.join(",", names)));
    }

    private static long millis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Writes class files under {@code outdir} (binary names from javac: no path escapes). */
    private static void write(Map<String, byte[]> compiled, Path outdir) throws IOException {
        for (Map.Entry<String, byte[]> c : compiled.entrySet()) {
            Path file = outdir.resolve(c.getKey().replace('.', '/') + ".class");
            Files.createDirectories(file.getParent());
            Files.write(file, c.getValue());
        }
    }

    /**
     * Fills the lists with every main and test source of the project (the task state's, as
     * compiled by Maven at warm-up, including generated sources), the candidate's files in place
     * of their originals, without {@code notCompiled}. Returns why that is not possible, or null.
     */
    private static String projectSources(String[] candidate, Set<Path> notCompiled,
            List<String> main, List<String> test) throws IOException {
        String mainMarker = "/src/main/java/";
        Set<Path> replaced = new HashSet<>(notCompiled);
        for (String file : candidate) {
            int at = file.lastIndexOf(mainMarker);
            if (at < 0) {
                return "the candidate's file " + file + " is not under src/main/java";
            }
            replaced.add(project.resolve("src/main/java")
                    .resolve(file.substring(at + mainMarker.length())).normalize());
            main.add(file);
        }
        sources(project.resolve("src/main/java"), replaced, main);
        sources(project.resolve("src/test/java"), replaced, test);
        for (String[] generated : new String[][] {{"generated-sources", "main"},
                {"generated-test-sources", "test"}}) {
            Path dir = project.resolve("target").resolve(generated[0]);
            if (Files.isDirectory(dir)) {
                try (Stream<Path> kinds = Files.list(dir)) {
                    for (Path kind : (Iterable<Path>) kinds::iterator) {
                        if (Files.isDirectory(kind)) {
                            sources(kind, replaced, generated[1].equals("main") ? main : test);
                        }
                    }
                }
            }
        }
        return null;
    }

    private static void sources(Path root, Set<Path> replaced, List<String> out)
            throws IOException {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(".java") && !name.equals("module-info.java")
                        && Files.isRegularFile(file) && !replaced.contains(file.normalize())) {
                    out.add(file.toString());
                }
            }
        }
    }

    static boolean isFramework(String className) {
        for (String p : FRAMEWORK_PACKAGES) {
            if (className.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** Discards what is written to it. */
    static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {}

        @Override
        public void write(byte[] b, int off, int len) {}
    }
}
