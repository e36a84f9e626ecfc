package avrlab.fastpath;

import java.io.ByteArrayOutputStream;
import java.io.FilePermission;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fast path's test JVM. It is started ahead of need, with the JDK, JUnit and the project's
 * dependencies on the class path and the JUnit Platform launcher created, and serves exactly one
 * candidate: the host sends a session key and the set-up, the compiler writes the candidate's class
 * files into the folder this JVM sees as {@code target/classes}, the host adds the build's other
 * main classes to it, then one {@code RUN} request runs the
 * PoV and the regression tests, and the JVM answers with one authenticated frame and ends. No
 * code of one candidate ever runs in a JVM where another candidate's code ran.
 *
 * <p>Like Surefire's fork: class-path mode with the JDK's default modules, the project's classes
 * on the system class path (test classes, then main classes, then the dependencies), assertions
 * enabled, the module folder as working directory, and every test on one thread. The helper
 * itself is a named module that exports and opens nothing, so its key cannot be reached by
 * reflection; the guard notes what the tested code reached for that could read it anyway.
 *
 * <p>{@code RECORD} (test-impact selection, at warm-up) runs in a JVM started without the project
 * on its class path: each regression test class runs alone in a fresh loader that notes the
 * project classes it defines.
 */
public final class Main {
    private Main() {}

    private static final Capture CAPTURE = new Capture(64 << 10);
    private static long timeoutMillis;
    /** What the tests may print per phase: the same output limit as each Maven test run's. */
    private static long outputLimit;
    private static Path classes;
    private static Path testClasses;
    /**
     * The candidate's main classes as this JVM sees them: the compiler's output with the build's
     * other main classes added (null when recording).
     */
    private static Path candidateClasses;
    private static Method runner;
    private static Method discoverer;
    private static Channel channel;
    /** The request being answered (the watchdog answers it when a phase overruns). */
    private static volatile long currentSeq;

    public static void main(String[] args) throws Exception {
        InputStream requests = System.in;
        System.setIn(InputStream.nullInputStream());
        PrintStream captured = new PrintStream(CAPTURE, true, StandardCharsets.UTF_8);
        System.setOut(captured);
        System.setErr(captured);
        Guard guard = new Guard();
        System.setSecurityManager(guard);
        channel = new Channel(requests);
        String[] f;
        while ((f = channel.next()) != null) {
            switch (f[0]) {
                case "SETUP":
                    setUp(f);
                    break;
                case "RUN": {
                    long seq = Long.parseLong(f[1]);
                    currentSeq = seq;
                    List<String> payload = new ArrayList<>();
                    run(seq, f, payload, guard);
                    send(seq, payload, guard);
                    return;
                }
                case "RECORD": {
                    long seq = Long.parseLong(f[1]);
                    currentSeq = seq;
                    List<String> payload = new ArrayList<>();
                    record(Channel.split(f[2]), Channel.split(f[3]), payload, guard);
                    send(seq, payload, guard);
                    return;
                }
                default:
                    return;
            }
        }
    }

    /**
     * Sends the answer and ends the JVM: whatever the tests left behind dies with it. A JVM that
     * writes the class-data archive at exit ({@code -Davrlab.fastpath.exit=normal}, at warm-up)
     * exits normally instead, which the archive needs.
     */
    private static void send(long seq, List<String> payload, Guard guard) throws Exception {
        channel.send("FRAME", seq, payload);
        guard.leaving = true;
        if ("normal".equals(System.getProperty("avrlab.fastpath.exit"))) {
            System.exit(0);
        }
        Runtime.getRuntime().halt(0);
    }

    /**
     * {@code SETUP timeoutMillis classes testClasses outputLimit candidateClasses reportLimit
     * properties}:
     * loads the
     * runner and creates
     * the launcher (its engines found), so that a candidate pays for none of it.
     */
    private static void setUp(String[] f) throws Exception {
        timeoutMillis = Long.parseLong(f[1]);
        classes = Path.of(f[2]);
        testClasses = Path.of(f[3]);
        outputLimit = Long.parseLong(f[4]);
        candidateClasses = f.length > 5 && !f[5].isEmpty() ? Path.of(f[5]) : null;
        Class<?> c = Class.forName("avrlab.fastpath.runner.Runner", true,
                ClassLoader.getSystemClassLoader());
        runner = c.getMethod("runOrdered", String[].class, String[].class, String.class,
                String[].class, boolean.class);
        discoverer = c.getMethod("discover", String.class, String[].class);
        // What a test class prints is held by Surefire's report of it, which Maven's engine
        // refuses past its size limit: each class is counted against that limit.
        long reportLimit = f.length > 6 && !f[6].isEmpty() ? Long.parseLong(f[6]) : Long.MAX_VALUE;
        c.getMethod("countPrintedWith", java.util.function.LongSupplier.class, long.class)
                .invoke(null, (java.util.function.LongSupplier) CAPTURE::total, reportLimit);
        c.getMethod("prewarm").invoke(null);
        // As Surefire's booter does before the tests: assertions enabled through the class loader
        // (no -ea), and its system properties set at run time (no -D on the command line).
        ClassLoader.getSystemClassLoader().setDefaultAssertionStatus(true);
        if (f.length > 7 && !f[7].isEmpty()) {
            // One property a line; in a value a backslash escapes the next character, n a line break.
            for (String line : Channel.unhexText(f[7]).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    System.setProperty(line.substring(0, eq), unescape(line.substring(eq + 1)));
                }
            }
        }
        CAPTURE.reset();
    }

    /**
     * {@code RUN seq pov regression excluded candidateClasses first stop again}: the PoV tests,
     * then (if they all passed, or there are none) the regression tests ({@code *}: Surefire's
     * default includes; otherwise the
     * tests or classes listed; the classes of the PoV tests in {@code again} added, which Maven's
     * regression run has again), never {@code excluded}; the regression classes in
     * {@code first} run before the others, and with {@code stop} = {@code first-failure} no
     * regression class runs after one that failed ({@code all}: every one).
     */
    private static void run(long seq, String[] f, List<String> out, Guard guard)
            throws Exception {
        String[] pov = Channel.split(f[2]);
        String regression = f[3];
        String[] excluded = Channel.split(f[4]);
        String[] first = f.length > 6 ? Channel.split(f[6]) : new String[0];
        boolean stop = f.length > 7 && f[7].equals("first-failure");
        // The PoV tests the regression phase runs again, as Maven's regression run has them.
        String[] again = f.length > 8 ? Channel.split(f[8]) : new String[0];
        guard.candidate = new HashSet<>(List.of(Channel.split(Channel.unhexText(f[5]))));
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        CAPTURE.reset();
        // The candidate's classes must come from its folders, seen as target/classes and
        // target/test-classes (the build's other classes added to them): a folder this JVM does
        // not see would have the task state's classes tested instead.
        for (String name : guard.candidate) {
            URL found = ClassLoader.getSystemResource(name.replace('.', '/') + ".class");
            if (found == null || !(found.getPath().startsWith(candidateClasses.toUri().getPath())
                    || found.getPath().startsWith(testClasses.toUri().getPath()))) {
                out.add("PHASE\tpov\tcrashed\t0\t" + Channel.hex("the candidate's class " + name
                        + " is not where the test JVM's project classes are (found at " + found + ")"));
                return;
            }
        }
        // No PoV tests (a feature task's prediction): the regression phase alone, which is then
        // the whole suite run once, as the build tool's one run of it.
        String why = pov.length == 0 ? null
                : phase("pov", pov, new String[0], new String[0], false, out, guard);
        if (why == null && (pov.length == 0 || allPassed(out, "pov"))) {
            // Maven runs the regression tests in another JVM than the PoV tests: a thread the PoV
            // tests left running reaches into this JVM's regression phase only.
            String carried = threadsLeft(before);
            if (carried != null) {
                guard.flag("a thread the PoV tests started was still running when the regression"
                        + " tests began (" + carried + ")");
            }
            String[] selected = regression.equals("*") ? new String[0] : Channel.split(regression);
            int mark = out.size();
            // The PoV tests run again with the rest, as in Maven's regression run: with all
            // classes they are among them; with selected classes their classes are added.
            why = phase("regression", withClassesOf(selected, again), excluded, first, stop, out,
                    guard);
            if (why == null && selected.length > 0 && !anyCaseBesides(out, "regression", again)) {
                // The selected classes hold no test that counts (the baseline leaves all of
                // theirs out): rather than a verdict on no regression test, every class runs.
                out.subList(mark, out.size()).clear();
                out.add("WIDENED\tregression\t" + Channel.hex("none of the " + selected.length
                        + " selected test classes has a test that counts, so every regression"
                        + " test class ran"));
                why = phase("regression", new String[0], excluded, first, stop, out, guard);
            }
        }
        out.add("LOG\t" + Channel.hex(CAPTURE.text()));
        if (guard.exitAttempted) {
            out.add("EXIT\tattempted");
        }
        // Whether a thread left running counts is the host's to say, which knows the verdict:
        // every test had its outcome before it was seen here.
        String alive = threadsLeft(before);
        if (alive != null) {
            out.add("LEFT\t" + Channel.hex(alive));
        }
        for (String flag : new TreeSet<>(guard.flags)) {
            out.add("FLAG\t" + Channel.hex(flag));
        }
        if (why != null) {
            out.add("STATE\tdirty\t" + Channel.hex(why));
        }
    }

    /**
     * Runs one phase on this thread, as Surefire's fork runs its tests; returns why it did not
     * end normally, or null. A watchdog ends the phase at the time or output limit, answering with
     * what ran so far.
     */
    private static String phase(String name, String[] tests, String[] excluded, String[] first,
            boolean stop, List<String> out, Guard guard) throws Exception {
        long t0 = System.nanoTime();
        // The output limit is per phase, as each of Maven's test runs is one process whose whole
        // log it bounds: what the earlier phase printed does not count here.
        long printedBefore = CAPTURE.total();
        Thread watchdog = new Thread(() -> {
            long deadline = t0 + timeoutMillis * 1_000_000;
            while (true) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException done) {
                    return;
                }
                boolean late = System.nanoTime() > deadline;
                boolean loud = CAPTURE.total() - printedBefore > outputLimit;
                if (late || loud) {
                    long millis = (System.nanoTime() - t0) / 1_000_000;
                    List<String> partial = new ArrayList<>(out);
                    partial.add("PHASE\t" + name + (loud ? "\toutput\t" : "\ttimeout\t") + millis
                            + "\t" + Channel.hex(loud
                                    ? "the tests printed more than " + outputLimit
                                            + " bytes in this phase"
                                    : "the phase outlived " + timeoutMillis + " ms"));
                    partial.add("LOG\t" + Channel.hex(CAPTURE.text()));
                    partial.add("STATE\tdirty\t" + Channel.hex(loud
                            ? "the tests printed past the output limit" : "a test phase timed out"));
                    try {
                        send(currentSeq, partial, guard);
                    } catch (Exception e) {
                        Runtime.getRuntime().halt(3);
                    }
                }
            }
        }, "avrlab-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        guard.armed = true;
        Object result;
        try {
            result = runner.invoke(null, tests, excluded, testClasses.toString(), first, stop);
        } catch (Throwable t) {
            result = t;
        }
        guard.armed = false;
        watchdog.interrupt();
        long millis = (System.nanoTime() - t0) / 1_000_000;
        if (!(result instanceof List)) {
            Throwable t = result instanceof java.lang.reflect.InvocationTargetException
                    ? ((java.lang.reflect.InvocationTargetException) result).getCause()
                    : (Throwable) result;
            StringBuilder chain = new StringBuilder(String.valueOf(t));
            for (Throwable c = t.getCause(); c != null && chain.length() < 4000; c = c.getCause()) {
                chain.append(" <- ").append(c);
            }
            out.add("PHASE\t" + name + "\tcrashed\t" + millis + "\t" + Channel.hex(chain.toString()));
            return "the test launcher failed";
        }
        @SuppressWarnings("unchecked")
        List<String[]> records = (List<String[]>) result;
        for (String[] rec : records) {
            if (rec.length == 1) {
                out.add("FOUND\t" + Channel.hex(rec[0]));
                continue;
            }
            if (rec.length == 2) {
                // The phase stopped at a failing class; rec[1] classes did not run.
                out.add("STOPPED\t" + name + "\t" + rec[1]);
                continue;
            }
            if (rec.length == 3) {
                // A class printed more than its Surefire report may hold.
                out.add("REPORT\t" + name + "\t" + Channel.hex(rec[1]) + "\t" + rec[2]);
                continue;
            }
            out.add("CASE\t" + name + "\t" + Channel.hex(rec[0]) + "\t" + Channel.hex(rec[1]) + "\t"
                    + rec[2] + "\t" + rec[3] + "\t" + Channel.hex(rec[4]));
        }
        out.add("PHASE\t" + name + "\tdone\t" + millis + "\t");
        return null;
    }

    /** A value as the host wrote it: a backslash escapes the next character, n a line break. */
    private static String unescape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length()) {
                char next = value.charAt(++i);
                out.append(next == 'n' ? '\n' : next);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Whether the phase has a test case that is not one of {@code besides}. */
    private static boolean anyCaseBesides(List<String> out, String phase, String[] besides) {
        Set<String> skip = new HashSet<>(List.of(besides));
        for (String line : out) {
            if (line.startsWith("CASE\t" + phase + "\t")) {
                String[] f = line.split("\t");
                String owner = Channel.unhexText(f[2]);
                if (!skip.contains(owner) && !skip.contains(owner + "#" + Channel.unhexText(f[3]))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The selected regression classes with the classes of {@code tests} added, in class-name
     * order; none selected (every class runs) stays none.
     */
    private static String[] withClassesOf(String[] selected, String[] tests) {
        if (selected.length == 0 || tests.length == 0) {
            return selected;
        }
        Set<String> classes = new TreeSet<>(List.of(selected));
        for (String test : tests) {
            int hash = test.indexOf('#');
            classes.add(hash < 0 ? test : test.substring(0, hash));
        }
        return classes.toArray(new String[0]);
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

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** A non-daemon thread the tests started that is still running (after a short grace). */
    private static String threadsLeft(Set<Thread> before) throws InterruptedException {
        String alive = null;
        for (int i = 0; i < 20; i++) {
            alive = null;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (!before.contains(t) && t.isAlive() && !t.isDaemon()) {
                    alive = t.getName();
                }
            }
            if (alive == null) {
                return null;
            }
            Thread.sleep(10);
        }
        return alive;
    }

    /**
     * Records, for each regression test class of the task state, the project classes loaded
     * while it ran: each class runs alone, in a fresh loader that defines the project's classes
     * and notes each one it defines (the JVM loads a class before any of its code runs, so a
     * class a test class never loaded cannot have influenced it). One line per class: {@code
     * DEPS class clean|unclean loaded,...}; unclean when a test of it did not pass or was not
     * skipped, or it left a thread running. This JVM has no project class on its class path.
     */
    private static void record(String[] pov, String[] baseline, List<String> out, Guard guard)
            throws Exception {
        String[] excluded = concat(pov, baseline);
        URL[] folders = {classes.toUri().toURL(), testClasses.toUri().toURL()};
        CAPTURE.reset();
        RecordingLoader finder = new RecordingLoader(folders);
        Thread.currentThread().setContextClassLoader(finder);
        Object listed = discoverer.invoke(null, testClasses.toString(), baseline);
        @SuppressWarnings("unchecked")
        List<String[]> names = (List<String[]>) listed;
        List<String> testClassNames = new ArrayList<>();
        for (String[] rec : names) {
            testClassNames.add(rec[0]);
        }
        String why = null;
        for (int i = 0; why == null && i < testClassNames.size(); i++) {
            String name = testClassNames.get(i);
            CAPTURE.reset();
            RecordingLoader loader = new RecordingLoader(folders);
            // Assertions as in a candidate's run (the system loader's default, set at set-up).
            loader.setDefaultAssertionStatus(true);
            Thread.currentThread().setContextClassLoader(loader);
            Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
            List<String> ran = new ArrayList<>();
            why = phase("record", new String[] {name}, excluded, new String[0], false, ran, guard);
            boolean clean = why == null && !guard.exitAttempted && threadsLeft(before) == null;
            for (String line : ran) {
                if (line.startsWith("CASE\t")) {
                    String status = line.split("\t")[4];
                    clean &= status.equals("passed") || status.equals("skipped");
                }
            }
            out.add("DEPS\t" + Channel.hex(name) + "\t" + (clean ? "clean" : "unclean") + "\t"
                    + Channel.hex(String.join(",", loader.definedNames())));
        }
        out.add("RECORDED\t" + testClassNames.size());
        out.add("STATE\t" + (why == null ? "clean" : "dirty") + "\t"
                + Channel.hex(why == null ? "" : why));
    }

    /** The project's classes for one recorded test class, noting each class it defines. */
    static final class RecordingLoader extends URLClassLoader {
        private final Set<String> defined = ConcurrentHashMap.newKeySet();

        RecordingLoader(URL[] folders) {
            super("recording", folders, ClassLoader.getSystemClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            Class<?> c = super.findClass(name);
            defined.add(name);
            return c;
        }

        List<String> definedNames() {
            List<String> names = new ArrayList<>(defined);
            Collections.sort(names);
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

    /**
     * Blocks System.exit and Runtime.halt while tests run (Surefire's fork would end without its
     * results), keeps itself installed, and otherwise only watches: it notes when the tested code
     * reaches for what could read the channel's key or forge the answer — the JVM's own memory
     * or descriptors under {@code /proc}, {@code sun.misc}/{@code jdk.internal} classes, access
     * checks suppressed, native code, replaced standard streams — so that the host has Maven
     * re-judge the candidate. Permissions are noted when the first caller outside the JDK is a
     * class the candidate's files compiled to, and for {@code /proc} whoever asks.
     */
    @SuppressWarnings("removal")
    static final class Guard extends SecurityManager {
        volatile boolean armed;
        volatile boolean exitAttempted;
        volatile boolean leaving;
        /** Binary names of the classes compiled from the candidate's files. */
        volatile Set<String> candidate = Set.of();
        final Set<String> flags = ConcurrentHashMap.newKeySet();
        /** The process's standard error, opened before any project code ran. */
        private final java.io.FileOutputStream stderr =
                new java.io.FileOutputStream(java.io.FileDescriptor.err);

        /**
         * Notes a flag, and writes it to standard error at once (the host reads it there too):
         * code that goes on to forge the answer cannot take it back.
         */
        void flag(String text) {
            if (flags.add(text)) {
                byte[] line = ("\nAVRLAB-FLAG\t" + Channel.hex(text) + "\n")
                        .getBytes(StandardCharsets.UTF_8);
                synchronized (stderr) {
                    try {
                        stderr.write(line);
                        stderr.flush();
                    } catch (java.io.IOException closed) {
                        // A closed descriptor was noted when it was closed (writeFileDescriptor).
                    }
                }
            }
        }

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
            if (!armed) {
                return;
            }
            if (perm instanceof FilePermission) {
                String path = perm.getName();
                if ((path.startsWith("/proc/") || path.startsWith("/dev/")) && procSecret(path)) {
                    flag("the tests opened " + path);
                }
                return;
            }
            String name = perm.getName();
            if (perm instanceof RuntimePermission) {
                // Installing a security manager would take the guard's place: refused. Merely
                // constructing one ("createSecurityManager") is not: a subclass made only to call
                // getClassContext() is how logging frameworks find their caller.
                if (name.equals("setSecurityManager")) {
                    flag("System.setSecurityManager was called by " + caller()
                            + " (refused: the guard stays installed)");
                    throw new SecurityException("avrlab: the security manager stays");
                }
                if (name.startsWith("accessClassInPackage.sun.") 
                        || name.startsWith("accessClassInPackage.jdk.internal")
                        || name.startsWith("loadLibrary.") || name.equals("setIO")
                        || name.equals("writeFileDescriptor")
                        || name.equals("readFileDescriptor")) {
                    noteIfCandidate(name);
                }
            } else if (perm instanceof java.lang.reflect.ReflectPermission
                    && name.equals("suppressAccessChecks")) {
                noteIfCandidate(name);
            }
        }

        @Override
        public void checkPermission(java.security.Permission perm, Object context) {
            checkPermission(perm);
        }

        private void noteIfCandidate(String permission) {
            Set<String> own = candidate;
            if (own.isEmpty()) {
                return;
            }
            String caller = caller();
            if (own.contains(caller)) {
                flag("the candidate's " + caller + " asked for " + permission);
            }
        }

        /**
         * The class that called the API checking a permission: past this guard and the classes
         * through which the JDK checks it (reflection, class loading, System), the next frame. A
         * JDK API that uses reflection on the candidate's behalf (the serial filter's set-up) is
         * then that API, not the candidate.
         */
        private String caller() {
            for (Class<?> c : getClassContext()) {
                if (c.getModule() == Guard.class.getModule() || checks(c.getName())) {
                    continue;
                }
                return c.getName();
            }
            return "no class outside the JDK";
        }

        /** Classes through which the JDK checks the permissions the guard watches. */
        private static boolean checks(String name) {
            return name.equals("java.lang.SecurityManager") || name.equals("java.lang.System")
                    || name.equals("java.lang.Runtime") || name.equals("java.lang.Class")
                    || name.equals("java.lang.ClassLoader")
                    || name.equals("java.io.FileOutputStream")
                    || name.equals("java.io.FileInputStream")
                    || name.startsWith("java.lang.reflect.")
                    || name.startsWith("java.lang.invoke.MethodHandles")
                    || name.startsWith("jdk.internal.loader.")
                    || name.startsWith("jdk.internal.reflect.");
        }

        /** What under /proc could read this JVM's memory or reach its descriptors. */
        private static boolean procSecret(String path) {
            return path.startsWith("/dev/std") || path.startsWith("/dev/fd")
                    || path.endsWith("/mem") || path.endsWith("/maps") || path.endsWith("/pagemap")
                    || path.contains("/fd/") || path.endsWith("/fd") || path.endsWith("/environ")
                    || path.contains("/task/") || path.contains("/map_files");
        }
    }
}
