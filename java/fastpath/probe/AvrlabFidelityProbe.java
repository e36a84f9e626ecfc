package avrlabprobe;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.TreeMap;

/**
 * The fidelity probe: a test of avrlab's own, never part of a task, that records what a test sees
 * of its JVM. The warm-up runs it once in Surefire's fork (Maven) and once in the fast path's test
 * JVM and compares the two records. The record travels in the failure messages of its tests (the
 * one thing both engines report in full for every test), compressed, hex-encoded and cut into
 * parts; every part fails, so both engines report every part.
 *
 * <p>{@code @TEST@} is the test annotation of the project's JUnit (4 or Jupiter) and
 * {@code @MAIN@} a main class of the project, filled in by the host.
 */
public class AvrlabFidelityProbe {
    /** How many characters of the record each part carries (the fast path keeps 2000 of a message). */
    private static final int PART = 1800;
    private static final String MAIN = "@MAIN@";

    private static String record() {
        Map<String, String> seen = new TreeMap<>();
        for (String name : System.getProperties().stringPropertyNames()) {
            seen.put("property " + name, System.getProperty(name));
        }
        Runtime runtime = Runtime.getRuntime();
        seen.put("runtime maxMemory", Long.toString(runtime.maxMemory()));
        seen.put("runtime availableProcessors", Integer.toString(runtime.availableProcessors()));
        List<String> collectors = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectors.add(gc.getName());
        }
        seen.put("jvm garbage collectors", String.join(", ", collectors));
        seen.put("jvm JIT compiler", ManagementFactory.getCompilationMXBean() == null
                ? "none" : ManagementFactory.getCompilationMXBean().getName());
        seen.put("jvm input arguments",
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        seen.put("jvm security manager installed",
                Boolean.toString(System.getSecurityManager() != null));
        describe(seen, "test class", AvrlabFidelityProbe.class);
        if (!MAIN.isEmpty()) {
            try {
                describe(seen, "main class", Class.forName(MAIN, false,
                        AvrlabFidelityProbe.class.getClassLoader()));
            } catch (ClassNotFoundException | LinkageError e) {
                seen.put("main class", "not loadable: " + e);
            }
        }
        boolean asserts = false;
        try {
            assert false;
        } catch (AssertionError enabled) {
            asserts = true;
        }
        seen.put("assertions enabled", Boolean.toString(asserts));
        seen.put("default locale", Locale.getDefault().toString());
        seen.put("default charset", Charset.defaultCharset().name());
        seen.put("default time zone", TimeZone.getDefault().getID());
        seen.put("working directory", Path.of("").toAbsolutePath().toString());
        Thread current = Thread.currentThread();
        seen.put("thread name", current.getName());
        seen.put("thread context class loader", loaderName(current.getContextClassLoader()));
        seen.put("system class loader", loaderName(ClassLoader.getSystemClassLoader()));
        seen.put("environment variables", String.join(", ", new TreeMap<>(System.getenv()).keySet()));
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, String> e : seen.entrySet()) {
            text.append(e.getKey()).append('=')
                    .append(e.getValue().replace("\\", "\\\\").replace("\n", "\\n"))
                    .append('\n');
        }
        return text.toString();
    }

    private static void describe(Map<String, String> seen, String what, Class<?> c) {
        seen.put(what + " loader", loaderName(c.getClassLoader()));
        CodeSource source = c.getProtectionDomain().getCodeSource();
        seen.put(what + " code source", source == null || source.getLocation() == null
                ? "none" : source.getLocation().toString());
        seen.put(what + " module", c.getModule().isNamed() ? c.getModule().getName() : "unnamed");
    }

    private static String loaderName(ClassLoader loader) {
        return loader == null ? "bootstrap" : loader.getName() + " (" + loader.getClass().getName() + ")";
    }

    /** The record, taken once (by the first part to run), so that every part cuts the same text. */
    private static String packed;

    private static synchronized String packed() {
        if (packed == null) {
            packed = pack();
        }
        return packed;
    }

    private static void part(int index) {
        String hex = packed();
        int from = Math.min(hex.length(), index * PART);
        int to = Math.min(hex.length(), from + PART);
        throw new AssertionError("AVRLAB-PROBE " + index + " " + (hex.length() + PART - 1) / PART
                + " " + hex.substring(from, to));
    }

    private static String pack() {
        // Compressed (zlib): class paths repeat the repository's folder in every entry.
        java.util.zip.Deflater deflater = new java.util.zip.Deflater(9);
        deflater.setInput(record().getBytes(StandardCharsets.UTF_8));
        deflater.finish();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        while (!deflater.finished()) {
            out.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.end();
        byte[] bytes = out.toByteArray();
        StringBuilder hex = new StringBuilder();
        for (byte b : bytes) {
            hex.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        }
        return hex.toString();
    }

    @@TEST@ public void part00() { part(0); }
    @@TEST@ public void part01() { part(1); }
    @@TEST@ public void part02() { part(2); }
    @@TEST@ public void part03() { part(3); }
    @@TEST@ public void part04() { part(4); }
    @@TEST@ public void part05() { part(5); }
    @@TEST@ public void part06() { part(6); }
    @@TEST@ public void part07() { part(7); }
    @@TEST@ public void part08() { part(8); }
    @@TEST@ public void part09() { part(9); }
    @@TEST@ public void part10() { part(10); }
    @@TEST@ public void part11() { part(11); }
    @@TEST@ public void part12() { part(12); }
    @@TEST@ public void part13() { part(13); }
    @@TEST@ public void part14() { part(14); }
    @@TEST@ public void part15() { part(15); }
    @@TEST@ public void part16() { part(16); }
    @@TEST@ public void part17() { part(17); }
    @@TEST@ public void part18() { part(18); }
    @@TEST@ public void part19() { part(19); }
    @@TEST@ public void part20() { part(20); }
    @@TEST@ public void part21() { part(21); }
    @@TEST@ public void part22() { part(22); }
    @@TEST@ public void part23() { part(23); }
    @@TEST@ public void part24() { part(24); }
    @@TEST@ public void part25() { part(25); }
    @@TEST@ public void part26() { part(26); }
    @@TEST@ public void part27() { part(27); }
    @@TEST@ public void part28() { part(28); }
    @@TEST@ public void part29() { part(29); }
    @@TEST@ public void part30() { part(30); }
    @@TEST@ public void part31() { part(31); }
    @@TEST@ public void part32() { part(32); }
    @@TEST@ public void part33() { part(33); }
    @@TEST@ public void part34() { part(34); }
    @@TEST@ public void part35() { part(35); }
    @@TEST@ public void part36() { part(36); }
    @@TEST@ public void part37() { part(37); }
    @@TEST@ public void part38() { part(38); }
    @@TEST@ public void part39() { part(39); }
}
