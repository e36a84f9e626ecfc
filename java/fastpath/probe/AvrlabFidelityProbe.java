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
 * <p>The host fills in the test annotation of the project's JUnit (4 or Jupiter; none, and a
 * {@code TestCase} superclass, for JUnit 3) and the name of one of the project's main classes.
 */
public class AvrlabFidelityProbe @EXTENDS@{
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

    @TEST@ public void testPart00() { part(0); }
    @TEST@ public void testPart01() { part(1); }
    @TEST@ public void testPart02() { part(2); }
    @TEST@ public void testPart03() { part(3); }
    @TEST@ public void testPart04() { part(4); }
    @TEST@ public void testPart05() { part(5); }
    @TEST@ public void testPart06() { part(6); }
    @TEST@ public void testPart07() { part(7); }
    @TEST@ public void testPart08() { part(8); }
    @TEST@ public void testPart09() { part(9); }
    @TEST@ public void testPart10() { part(10); }
    @TEST@ public void testPart11() { part(11); }
    @TEST@ public void testPart12() { part(12); }
    @TEST@ public void testPart13() { part(13); }
    @TEST@ public void testPart14() { part(14); }
    @TEST@ public void testPart15() { part(15); }
    @TEST@ public void testPart16() { part(16); }
    @TEST@ public void testPart17() { part(17); }
    @TEST@ public void testPart18() { part(18); }
    @TEST@ public void testPart19() { part(19); }
    @TEST@ public void testPart20() { part(20); }
    @TEST@ public void testPart21() { part(21); }
    @TEST@ public void testPart22() { part(22); }
    @TEST@ public void testPart23() { part(23); }
    @TEST@ public void testPart24() { part(24); }
    @TEST@ public void testPart25() { part(25); }
    @TEST@ public void testPart26() { part(26); }
    @TEST@ public void testPart27() { part(27); }
    @TEST@ public void testPart28() { part(28); }
    @TEST@ public void testPart29() { part(29); }
    @TEST@ public void testPart30() { part(30); }
    @TEST@ public void testPart31() { part(31); }
    @TEST@ public void testPart32() { part(32); }
    @TEST@ public void testPart33() { part(33); }
    @TEST@ public void testPart34() { part(34); }
    @TEST@ public void testPart35() { part(35); }
    @TEST@ public void testPart36() { part(36); }
    @TEST@ public void testPart37() { part(37); }
    @TEST@ public void testPart38() { part(38); }
    @TEST@ public void testPart39() { part(39); }
}
