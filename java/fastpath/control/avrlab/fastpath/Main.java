package avrlab.fastpath;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The resident validator. One JVM serves one task: the host sends a session key and the task's
 * set-up, then one request per candidate; each answer is one frame authenticated with the key.
 *
 * <p>The key lives only in this module, which exports and opens nothing: test code, which runs in
 * this JVM, can write to the process's standard output (through {@code FileDescriptor.out}) but
 * cannot produce a frame the host accepts without the key. What code with {@code sun.misc.Unsafe}
 * could still do is written down in ARCHITECTURE.md.
 */
public final class Main {
    private Main() {}

    /** Packages a candidate may not define: the test framework's and this helper's. */
    private static final String[] FRAMEWORK_PACKAGES = {
        "java.", "javax.", "jdk.", "sun.", "org.junit.", "junit.", "org.opentest4j.",
        "org.apiguardian.", "avrlab."
    };

    private static final OutputStream CHANNEL = new FileOutputStream(FileDescriptor.out);
    private static final Capture CAPTURE = new Capture(64 << 10);
    private static Mac mac;
    private static int release;
    private static long timeoutMillis;
    /** What the tests may print per candidate: the same output limit as a Maven run's. */
    private static long outputLimit;
    private static Path classes;
    private static Path testClasses;
    private static List<Path> dependencies;
    private static ClassLoader shared;
    private static Method runner;
    private static Method discoverer;
    /** The loader of the project classes whose tests run now (the system loader asks it). */
    private static volatile ClassLoader projectLoader;
    /** The handle on the system class loader, when the JVM runs with it. */
    private static avrlab.fastpath.system.SystemLoader.Control systemLoader;
    /** The host's requests; a validation waits here for the host's regression scope. */
    private static BufferedReader requestsIn;
    /** The entries of {@code target/} and the temporary folder before any candidate. */
    private static final Map<Path, Set<String>> baselineEntries = new HashMap<>();

    public static void main(String[] args) throws Exception {
        if (ClassLoader.getSystemClassLoader() instanceof avrlab.fastpath.system.SystemLoader) {
            systemLoader = avrlab.fastpath.system.SystemLoader.control(() -> projectLoader);
        }
        InputStream requests = System.in;
        System.setIn(InputStream.nullInputStream());
        PrintStream captured = new PrintStream(CAPTURE, true, StandardCharsets.UTF_8);
        System.setOut(captured);
        System.setErr(captured);
        Guard guard = new Guard();
        System.setSecurityManager(guard);
        BufferedReader in =
                new BufferedReader(new InputStreamReader(requests, StandardCharsets.UTF_8));
        requestsIn = in;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            switch (f[0]) {
                case "KEY":
                    mac = Mac.getInstance("HmacSHA256");
                    mac.init(new SecretKeySpec(unhex(f[1]), "HmacSHA256"));
                    break;
                case "SETUP":
                    setUp(f);
                    break;
                case "VALIDATE": {
                    if (mac == null || runner == null) {
                        return;
                    }
                    long seq = Long.parseLong(f[1]);
                    List<String> payload = new ArrayList<>();
                    boolean dirty = validate(seq, f, payload, guard);
                    send("FRAME", seq, payload);
                    if (dirty) {
                        // Whatever the candidate left behind dies with this JVM.
                        guard.leaving = true;
                        Runtime.getRuntime().halt(0);
                    }
                    break;
                }
                case "RECORD": {
                    if (mac == null || runner == null) {
                        return;
                    }
                    long seq = Long.parseLong(f[1]);
                    List<String> payload = new ArrayList<>();
                    boolean dirty = record(split(f[2]), split(f[3]), payload, guard);
                    send("FRAME", seq, payload);
                    if (dirty) {
                        guard.leaving = true;
                        Runtime.getRuntime().halt(0);
                    }
                    break;
                }
                default:
                    return;
            }
        }
        guard.leaving = true;
    }

    private static void setUp(String[] f) throws Exception {
        release = Integer.parseInt(f[1]);
        timeoutMillis = Long.parseLong(f[2]);
        classes = Path.of(f[3]);
        testClasses = Path.of(f[4]);
        Path runnerDir = Path.of(f[5]);
        outputLimit = Long.parseLong(f[7]);
        dependencies = new ArrayList<>();
        for (String entry : f[6].split(":")) {
            if (!entry.isEmpty()) {
                dependencies.add(Path.of(entry));
            }
        }
        List<URL> urls = new ArrayList<>();
        for (Path p : dependencies) {
            urls.add(p.toUri().toURL());
        }
        urls.add(runnerDir.toUri().toURL());
        shared = new URLClassLoader("dependencies", urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader());
        Class<?> c = Class.forName("avrlab.fastpath.runner.Runner", true, shared);
        for (Path folder : List.of(classes.getParent(),
                Path.of(System.getProperty("java.io.tmpdir")))) {
            String[] names = folder.toFile().list();
            if (names != null) {
                baselineEntries.put(folder, Set.of(names));
            }
        }
        runner = c.getMethod("run", String[].class, String[].class, String.class, long.class);
        discoverer = c.getMethod("discover", String.class, String[].class);
    }

    /** Validates one candidate; returns whether this JVM must be replaced. */
    private static boolean validate(long seq, String[] f, List<String> out, Guard guard)
            throws Exception {
        String[] pov = split(f[2]);
        String regression = f[3];
        String[] sources = split(f[4]);
        String[] baseline = f.length > 5 ? split(f[5]) : new String[0];
        CAPTURE.reset();
        long t0 = System.nanoTime();
        Map<String, byte[]> compiled = new HashMap<>();
        List<String> diagnostics = new ArrayList<>();
        String problem =
                Compile.compile(sources, classes, dependencies, release, compiled, diagnostics);
        long compileMillis = (System.nanoTime() - t0) / 1_000_000;
        if (problem != null) {
            out.add("FALLBACK\t" + hex(problem));
            return false;
        }
        if (!diagnostics.isEmpty()) {
            StringBuilder line = new StringBuilder("COMPILE\terror\t" + compileMillis);
            for (String d : diagnostics) {
                line.append('\t').append(hex(d));
            }
            out.add(line.toString());
            return false;
        }
        // Other classes (tests above all) were compiled against the task state's classes: when
        // the candidate changes what they see (a renamed method, a new constant value that javac
        // inlined), they are stale, and Maven would recompile them. So does this: every main and
        // test source, in memory, with the candidate's files in place.
        String note = "";
        String changedApi = Api.changed(compiled, classes);
        if (changedApi != null) {
            List<String> everything = new ArrayList<>();
            String missing = projectSources(sources, everything);
            if (missing != null) {
                out.add("FALLBACK\t" + hex(changedApi + ", and " + missing));
                return false;
            }
            Map<String, byte[]> all = new HashMap<>();
            List<String> errors = new ArrayList<>();
            problem = Compile.compile(everything.toArray(new String[0]), null, dependencies,
                    release, all, errors);
            if (problem != null || !errors.isEmpty()) {
                // Maven decides whether the project still compiles (its compiler settings, not
                // these): a compilation error here is a reason to ask it, not a verdict.
                out.add("FALLBACK\t" + hex(changedApi + ", and the project's sources do not"
                        + " compile against it in memory: "
                        + (problem != null ? problem : errors.get(0))));
                return false;
            }
            compiled = all;
            compileMillis = (System.nanoTime() - t0) / 1_000_000;
            note = changedApi + ": " + everything.size()
                    + " main and test sources recompiled in memory";
        }
        out.add("COMPILE\tok\t" + compileMillis + "\t" + hex(note));
        for (String name : compiled.keySet()) {
            if (isFramework(name)) {
                out.add("FALLBACK\t" + hex("the candidate defines " + name
                        + ", a class in a framework package"));
                return false;
            }
        }
        CandidateLoader loader =
                new CandidateLoader(new URL[] {classes.toUri().toURL(), testClasses.toUri().toURL()},
                        compiled, shared);
        String why = phase("pov", tests(pov, new String[0]), loader, out, guard);
        if (why == null && allPassed(out, "pov")) {
            String[] selected = regression.equals("*") ? new String[0] : split(regression);
            String[] excluded = new String[0];
            if (regression.equals("*")) {
                excluded = concat(pov, baseline);
                // The host may narrow the suite to the test classes that depend on the classes
                // just compiled (test-impact selection): it is told their names, and whether
                // every project class was recompiled, and answers with the classes to run.
                if (f.length > 6 && f[6].equals("ask")) {
                    List<String> names = new ArrayList<>(compiled.keySet());
                    java.util.Collections.sort(names);
                    send("QUERY", seq, List.of("CHANGED\t" + (changedApi == null ? "some" : "all")
                            + "\t" + hex(String.join(",", names))));
                    String answer = requestsIn.readLine();
                    String[] a = answer == null ? new String[0] : answer.split("\t", -1);
                    if (a.length >= 4 && a[0].equals("SCOPE") && a[1].equals(Long.toString(seq))
                            && a[2].equals("only")) {
                        selected = split(new String(unhex(a[3]), StandardCharsets.UTF_8));
                    }
                }
            }
            why = phase("regression", tests(selected, excluded), loader, out, guard);
        }
        out.add("LOG\t" + hex(CAPTURE.text()));
        if (guard.exitAttempted) {
            out.add("EXIT\tattempted");
            if (why == null) {
                why = "a test called System.exit or Runtime.halt";
            }
        }
        if (why == null) {
            why = leftBehind(loader);
        }
        out.add("STATE\t" + (why == null ? "clean" : "dirty") + "\t" + hex(why == null ? "" : why));
        return why != null;
    }

    /** Why the system class loader now holds classes of this candidate's loader, or null. */
    /**
     * What the tests run with {@code loader} left behind that the next candidate would meet
     * (threads still running, files written, classes the system loader kept), or null.
     */
    private static String leftBehind(CandidateLoader loader) throws InterruptedException {
        String why = threadsLeft(loader);
        if (why == null) {
            why = removeWritten();
        }
        if (why == null) {
            why = systemLoaderKept();
        }
        return why;
    }

    private static String systemLoaderKept() {
        if (systemLoader != null && systemLoader.takeDelegated() > 0) {
            return "project classes were loaded through the system class loader, which keeps them";
        }
        return null;
    }

    /**
     * Fills {@code out} with every main and test source of the project (the task state's, as
     * compiled by Maven at warm-up, including generated sources), the candidate's files in place
     * of their originals. Returns why that is not possible, or null.
     */
    private static String projectSources(String[] candidate, List<String> out)
            throws IOException {
        Path project = classes.getParent().getParent();
        String mainMarker = "/src/main/java/";
        java.util.Set<Path> replaced = new java.util.HashSet<>();
        for (String file : candidate) {
            int at = file.lastIndexOf(mainMarker);
            if (at < 0) {
                return "the candidate's file " + file + " is not under src/main/java";
            }
            replaced.add(project.resolve("src/main/java")
                    .resolve(file.substring(at + mainMarker.length())).normalize());
            out.add(file);
        }
        List<Path> roots = new ArrayList<>();
        roots.add(project.resolve("src/main/java"));
        roots.add(project.resolve("src/test/java"));
        for (String generated : new String[] {"generated-sources", "generated-test-sources"}) {
            Path dir = project.resolve("target").resolve(generated);
            if (Files.isDirectory(dir)) {
                try (java.util.stream.Stream<Path> kinds = Files.list(dir)) {
                    kinds.filter(Files::isDirectory).forEach(roots::add);
                }
            }
        }
        if (hasClassFiles(testClasses) && !Files.isDirectory(roots.get(1))) {
            return "the project's test sources are not in src/test/java";
        }
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (java.util.stream.Stream<Path> files = Files.walk(root)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    String name = file.getFileName().toString();
                    if (name.endsWith(".java") && !name.equals("module-info.java")
                            && Files.isRegularFile(file) && !replaced.contains(file.normalize())) {
                        out.add(file.toString());
                    }
                }
            }
        }
        return null;
    }

    private static boolean hasClassFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            return files.anyMatch(f -> f.toString().endsWith(".class"));
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** The runner's call for these tests. */
    private static java.util.concurrent.Callable<Object> tests(String[] tests, String[] excluded) {
        return () -> runner.invoke(null, tests, excluded, testClasses.toString(), timeoutMillis);
    }

    /**
     * Records, for each regression test class of the task state, the project classes loaded
     * while it ran: each class runs alone, in a fresh loader that defines the project's classes
     * and notes each one it defines (the JVM loads a class before any of its code runs, so a
     * class a test class never loaded cannot have influenced it). One line per class: {@code
     * DEPS class clean|unclean loaded,...}; unclean when a test of it did not pass or was not
     * skipped. Returns whether the JVM must be replaced (then the record is incomplete).
     */
    private static boolean record(String[] pov, String[] baseline, List<String> out, Guard guard)
            throws Exception {
        String[] excluded = concat(pov, baseline);
        URL[] folders = {classes.toUri().toURL(), testClasses.toUri().toURL()};
        CAPTURE.reset();
        CandidateLoader finder = new CandidateLoader(folders, Map.of(), shared);
        List<String> found = new ArrayList<>();
        String why = phase("discover",
                () -> discoverer.invoke(null, testClasses.toString(), baseline), finder, found,
                guard);
        if (why == null) {
            why = threadsLeft(finder);
        }
        List<String> testClassNames = new ArrayList<>();
        for (String line : found) {
            if (line.startsWith("FOUND\t")) {
                testClassNames.add(new String(unhex(line.substring(6)), StandardCharsets.UTF_8));
            }
        }
        for (int i = 0; why == null && i < testClassNames.size(); i++) {
            String name = testClassNames.get(i);
            CAPTURE.reset();
            CandidateLoader loader = new CandidateLoader(folders, Map.of(), shared);
            List<String> ran = new ArrayList<>();
            why = phase("record", tests(new String[] {name}, excluded), loader, ran, guard);
            if (why == null && guard.exitAttempted) {
                why = "a test called System.exit or Runtime.halt";
            }
            if (why == null) {
                why = leftBehind(loader);
            }
            boolean clean = why == null;
            for (String line : ran) {
                if (line.startsWith("CASE\t")) {
                    String status = line.split("\t")[4];
                    clean &= status.equals("passed") || status.equals("skipped");
                }
            }
            List<String> loaded = loader.definedNames();
            out.add("DEPS\t" + hex(name) + "\t" + (clean ? "clean" : "unclean") + "\t"
                    + hex(String.join(",", loaded)));
        }
        out.add("RECORDED\t" + testClassNames.size());
        out.add("STATE\t" + (why == null ? "clean" : "dirty") + "\t" + hex(why == null ? "" : why));
        return why != null;
    }

    /** Runs one phase in its own thread; returns why the JVM is now dirty, or null. */
    private static String phase(String name, java.util.concurrent.Callable<Object> call,
            CandidateLoader loader, List<String> out, Guard guard) throws InterruptedException {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                result.set(call.call());
            } catch (Throwable t) {
                result.set(t);
            }
        }, "avrlab-" + name);
        worker.setContextClassLoader(loader);
        worker.setDaemon(true);
        projectLoader = loader;
        long t0 = System.nanoTime();
        guard.armed = true;
        worker.start();
        // Waited in slices, so that tests printing without end are stopped at the output limit
        // (as Maven's run would be) rather than at the time limit.
        long deadline = t0 + timeoutMillis * 1_000_000;
        while (worker.isAlive() && CAPTURE.total() <= outputLimit) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            worker.join(Math.min(left, 50));
        }
        guard.armed = false;
        long millis = (System.nanoTime() - t0) / 1_000_000;
        if (CAPTURE.total() > outputLimit) {
            out.add("PHASE\t" + name + "\toutput\t" + millis + "\t" + hex("the tests printed more"
                    + " than " + outputLimit + " bytes"));
            return "the tests printed past the output limit";
        }
        if (worker.isAlive()) {
            out.add("PHASE\t" + name + "\ttimeout\t" + millis + "\t" + hex("the phase outlived "
                    + timeoutMillis + " ms"));
            return "a test phase timed out";
        }
        Object r = result.get();
        if (!(r instanceof List)) {
            Throwable t = r instanceof java.lang.reflect.InvocationTargetException
                    ? ((java.lang.reflect.InvocationTargetException) r).getCause() : (Throwable) r;
            StringBuilder chain = new StringBuilder(String.valueOf(t));
            for (Throwable c = t.getCause(); c != null && chain.length() < 4000; c = c.getCause()) {
                chain.append(" <- ").append(c);
            }
            out.add("PHASE\t" + name + "\tcrashed\t" + millis + "\t" + hex(chain.toString()));
            return "the test launcher failed";
        }
        @SuppressWarnings("unchecked")
        List<String[]> records = (List<String[]>) r;
        for (String[] rec : records) {
            if (rec.length == 1) {
                out.add("FOUND\t" + hex(rec[0]));
                continue;
            }
            out.add("CASE\t" + name + "\t" + hex(rec[0]) + "\t" + hex(rec[1]) + "\t" + rec[2]
                    + "\t" + rec[3] + "\t" + hex(rec[4]));
        }
        out.add("PHASE\t" + name + "\tdone\t" + millis + "\t");
        return null;
    }

    private static boolean allPassed(List<String> out, String phase) {
        boolean any = false;
        for (String line : out) {
            if (line.startsWith("CASE\t" + phase + "\t")) {
                any = true;
                if (!line.split("\t")[4].equals("passed")) {
                    return false;
                }
            }
        }
        return any;
    }

    /**
     * Empties what the tests wrote under {@code target/} and the temporary folder, so that the
     * next candidate starts from what Surefire's fresh fork would see; returns why the JVM is
     * dirty when something could not be removed.
     */
    private static String removeWritten() {
        for (Map.Entry<Path, Set<String>> folder : baselineEntries.entrySet()) {
            String[] now = folder.getKey().toFile().list();
            if (now == null) {
                continue;
            }
            for (String name : now) {
                if (folder.getValue().contains(name)) {
                    continue;
                }
                Path written = folder.getKey().resolve(name);
                try (java.util.stream.Stream<Path> walk = Files.walk(written)) {
                    List<Path> all = new ArrayList<>();
                    walk.forEach(all::add);
                    java.util.Collections.reverse(all);
                    for (Path p : all) {
                        Files.deleteIfExists(p);
                    }
                } catch (IOException | RuntimeException e) {
                    return "files the tests wrote could not be removed (" + written + ")";
                }
            }
        }
        return null;
    }

    /** Threads the candidate's code started that are still alive (after a short grace). */
    private static String threadsLeft(ClassLoader loader) throws InterruptedException {
        for (int i = 0; i < 20; i++) {
            String alive = null;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t != Thread.currentThread() && t.isAlive()
                        && t.getContextClassLoader() == loader && !idleProcessReaper(t)) {
                    alive = t.getName();
                }
            }
            if (alive == null) {
                return null;
            }
            if (i == 19) {
                return "a thread started by the tests is still running (" + alive + ")";
            }
            Thread.sleep(10);
        }
        return null;
    }

    /**
     * Whether {@code t} is an idle thread of the JDK's process-reaper pool: the JDK starts one in
     * the root thread group the first time a test starts a process, and it keeps the context class
     * loader of the thread that started it. Idle (no child process left to wait for, only JDK
     * code on its stack) it runs nothing of the project's and ends by itself.
     */
    private static boolean idleProcessReaper(Thread t) {
        ThreadGroup group = t.getThreadGroup();
        if (!t.getName().equals("process reaper") || !t.isDaemon() || group == null
                || group.getParent() != null) {
            return false;
        }
        for (StackTraceElement frame : t.getStackTrace()) {
            String owner = frame.getClassName();
            if (!(owner.startsWith("java.") || owner.startsWith("jdk.internal."))
                    || frame.getMethodName().equals("waitForProcessExit0")) {
                return false;
            }
        }
        return true;
    }

    static boolean isFramework(String className) {
        for (String p : FRAMEWORK_PACKAGES) {
            if (className.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** Sends one authenticated frame: the answer ({@code FRAME}) or a question ({@code QUERY}). */
    private static void send(String kind, long seq, List<String> payload) throws IOException {
        String body = hex(String.join("\n", payload));
        String signed = kind + "\t" + seq + "\t" + body;
        byte[] tag = mac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
        // A leading newline ends any partial line that test code wrote to the same descriptor.
        String frame = "\n" + signed + "\t" + hex(tag) + "\n";
        CHANNEL.write(frame.getBytes(StandardCharsets.UTF_8));
        CHANNEL.flush();
    }

    private static String[] split(String list) {
        return list.isEmpty() ? new String[0] : list.split(",");
    }

    static String hex(String text) {
        return hex(text.getBytes(StandardCharsets.UTF_8));
    }

    static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            s.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        }
        return s.toString();
    }

    private static byte[] unhex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    /** The project's classes for one candidate: compiled overrides first, then its folders. */
    static final class CandidateLoader extends URLClassLoader {
        private final Map<String, byte[]> overrides;
        /** Every project class this loader defined (test-impact selection reads it). */
        private final Set<String> defined = java.util.concurrent.ConcurrentHashMap.newKeySet();

        CandidateLoader(URL[] folders, Map<String, byte[]> overrides, ClassLoader parent) {
            super("candidate", folders, parent);
            this.overrides = overrides;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            // Parent-first delegation already gave framework classes to the shared loader; a
            // project class may never stand in for one that it did not find.
            if (isFramework(name)) {
                throw new ClassNotFoundException(name);
            }
            byte[] bytes = overrides.get(name);
            Class<?> c = bytes != null ? defineClass(name, bytes, 0, bytes.length)
                    : super.findClass(name);
            defined.add(name);
            return c;
        }

        List<String> definedNames() {
            List<String> names = new ArrayList<>(defined);
            java.util.Collections.sort(names);
            return names;
        }
    }

    /** Standard output and error of the tests: the last bytes, for the log. */
    static final class Capture extends OutputStream {
        private final int cap;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        /** Everything written since the last reset, kept or not. */
        private long total;

        Capture(int cap) {
            this.cap = cap;
        }

        @Override
        public synchronized void write(int b) {
            total++;
            if (bytes.size() < cap) {
                bytes.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            total += len;
            bytes.write(b, off, Math.max(0, Math.min(len, cap - bytes.size())));
        }

        synchronized void reset() {
            bytes.reset();
            total = 0;
        }

        synchronized long total() {
            return total;
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** Blocks System.exit and Runtime.halt while tests run, and the removal of itself. */
    @SuppressWarnings("removal")
    static final class Guard extends SecurityManager {
        volatile boolean armed;
        volatile boolean exitAttempted;
        volatile boolean leaving;

        @Override
        public void checkExit(int status) {
            if (!leaving) {
                exitAttempted = exitAttempted || armed;
                if (armed) {
                    throw new SecurityException("avrlab: System.exit is blocked during tests");
                }
            }
        }

        @Override
        public void checkPermission(java.security.Permission perm) {
            if (perm instanceof RuntimePermission && armed) {
                String name = perm.getName();
                if (name.equals("setSecurityManager") || name.equals("createSecurityManager")) {
                    throw new SecurityException("avrlab: the security manager stays");
                }
            }
        }

        @Override
        public void checkPermission(java.security.Permission perm, Object context) {
            checkPermission(perm);
        }
    }

    static Set<String> frameworkPackages() {
        return Set.of(FRAMEWORK_PACKAGES);
    }
}
