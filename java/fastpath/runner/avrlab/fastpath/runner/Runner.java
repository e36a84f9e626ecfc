package avrlab.fastpath.runner;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs selected tests through the JUnit Platform launcher and returns one record per test:
 * {class, method, status, seconds, message}, and one {"report", class, bytes} per class that
 * printed more than a Surefire report may hold. Loaded from the test JVM's class path (next to the
 * project's own JUnit), never in the control module; the control side calls it by reflection.
 */
public final class Runner {
    private Runner() {}

    /** How many bytes the tests have printed so far (the control side's count). */
    private static java.util.function.LongSupplier printed = () -> 0;
    /** The most a test class may print: the largest Surefire report of it Maven's engine reads. */
    private static long reportLimit = Long.MAX_VALUE;

    /**
     * Counts what each test class prints with {@code counter}: a class that prints more than
     * {@code limit} bytes gets a record {@code {"report", class, bytes}}, since Surefire's report
     * of it, which holds its tests' output, would be larger than Maven's engine reads.
     */
    public static void countPrintedWith(java.util.function.LongSupplier counter, long limit) {
        printed = counter;
        reportLimit = limit;
    }

    /** Surefire's default includes: Test*, *Test, *Tests, *TestCase (top-level classes). */
    private static final String[] SUREFIRE_INCLUDES = {
        "^(.*\\.)?Test[^.$]*$", "^[^$]*Tests?$", "^[^$]*TestCase$"
    };

    /**
     * @param tests selected tests ("Class#method" or "Class"); empty with {@code testRoot} set: all
     *     tests under {@code testRoot} matching Surefire's includes, minus {@code excluded}
     */
    public static List<String[]> run(String[] tests, String[] excluded, String testRoot) {
        List<DiscoverySelector> selectors = new ArrayList<>();
        // "Class#method[3]": one invocation of a parameterized test, named as Surefire reports it
        // (the engine's legacy reporting name); its class is selected and the rest filtered out.
        Set<String> invocations = new HashSet<>();
        Set<String> invocationClasses = new HashSet<>();
        Set<String> wholeClasses = new HashSet<>();
        Set<String> methods = new HashSet<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (String test : tests) {
            int hash = test.indexOf('#');
            if (hash < 0) {
                selectors.add(DiscoverySelectors.selectClass(test));
                wholeClasses.add(test);
                continue;
            }
            // Like Surefire's filter, a method name selects every method of that name, whatever
            // its parameters (@TempDir, parameterized tests).
            String className = test.substring(0, hash);
            String methodName = test.substring(hash + 1);
            if (methodName.endsWith("]") && methodName.indexOf('[') > 0) {
                invocations.add(test);
                if (invocationClasses.add(className)) {
                    selectors.add(DiscoverySelectors.selectClass(className));
                }
                continue;
            }
            methods.add(test);
            try {
                Class<?> type = Class.forName(className, false, loader);
                boolean found = false;
                for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                    for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                        if (m.getName().equals(methodName)) {
                            selectors.add(DiscoverySelectors.selectMethod(type, m));
                            found = true;
                        }
                    }
                }
                if (!found) {
                    selectors.add(DiscoverySelectors.selectMethod(className, methodName));
                }
            } catch (ClassNotFoundException | LinkageError e) {
                selectors.add(DiscoverySelectors.selectMethod(className, methodName));
            }
        }
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        if (tests.length == 0) {
            selectors.addAll(DiscoverySelectors.selectClasspathRoots(Set.of(Path.of(testRoot))));
            request.filters(ClassNameFilter.includeClassNamePatterns(SUREFIRE_INCLUDES));
        }
        Set<String> skip = new HashSet<>(List.of(excluded));
        PostDiscoveryFilter notExcluded =
                descriptor -> {
                    Optional<TestSource> source = descriptor.getSource();
                    if (source.isPresent() && source.get() instanceof MethodSource) {
                        MethodSource m = (MethodSource) source.get();
                        String owner = m.getClassName();
                        if (invocationClasses.contains(owner) && !wholeClasses.contains(owner)
                                && !methods.contains(owner + "#" + m.getMethodName())
                                && !invocations.contains(
                                        owner + "#" + descriptor.getLegacyReportingName())) {
                            return FilterResult.excluded("another invocation");
                        }
                        if (skip.contains(owner + "#" + m.getMethodName())
                                || skip.contains(owner + "#" + descriptor.getLegacyReportingName())
                                || skip.contains(owner)) {
                            return FilterResult.excluded("a PoV test");
                        }
                    }
                    return FilterResult.included("selected");
                };
        LauncherDiscoveryRequest discovery =
                request.selectors(selectors)
                        .filters(notExcluded)
                        // No timeout of the launcher's own: Surefire sets none, and a timeout
                        // in a separate thread would run each test off the fork's one thread
                        // (the helper's watchdog bounds the phase instead).
                        .configurationParameters(
                                Map.of("junit.jupiter.extensions.autodetection.enabled", "false"))
                        .build();
        Launcher launcher = launcher();
        List<String[]> records = new ArrayList<>();
        Map<TestIdentifier, Long> started = new java.util.HashMap<>();
        // The outermost class container running, and the byte count when it started.
        TestIdentifier[] openClass = {null};
        long[] printedAtOpen = {0};
        TestExecutionListener listener =
                new TestExecutionListener() {
                    @Override
                    public void executionStarted(TestIdentifier id) {
                        started.put(id, System.nanoTime());
                        boolean isClass = id.getSource().filter(s -> s instanceof
                                org.junit.platform.engine.support.descriptor.ClassSource)
                                .isPresent();
                        if (isClass && openClass[0] == null) {
                            openClass[0] = id;
                            printedAtOpen[0] = printed.getAsLong();
                        }
                    }

                    @Override
                    public void executionSkipped(TestIdentifier id, String reason) {
                        if (id.isTest()) {
                            records.add(record(id, "skipped", 0, reason));
                        }
                    }

                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        Long t0 = started.remove(id);
                        double seconds = t0 == null ? 0 : (System.nanoTime() - t0) / 1e9;
                        Throwable thrown = result.getThrowable().orElse(null);
                        if (id.equals(openClass[0])) {
                            openClass[0] = null;
                            long bytes = printed.getAsLong() - printedAtOpen[0];
                            if (bytes > reportLimit) {
                                records.add(new String[] {"report", className(id),
                                    Long.toString(bytes)});
                            }
                        }
                        if (!id.isTest()) {
                            // A class whose set-up failed: its tests did not run; say so.
                            if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                                records.add(
                                        new String[] {
                                            className(id), "", "errored", "0", message(thrown)
                                        });
                            }
                            return;
                        }
                        String status;
                        switch (result.getStatus()) {
                            case SUCCESSFUL:
                                status = "passed";
                                break;
                            case ABORTED:
                                status = "skipped";
                                break;
                            default:
                                if (thrown instanceof TimeoutException) {
                                    status = "timeout";
                                } else if (thrown instanceof AssertionError) {
                                    status = "failed";
                                } else {
                                    status = "errored";
                                }
                        }
                        records.add(record(id, status, seconds, message(thrown)));
                    }
                };
        launcher.execute(discovery, listener);
        return records;
    }

    /**
     * Runs the selection class by class: the classes in {@code first} (those that failed for
     * earlier candidates of the task) before the others, the others in the order {@link #run}
     * would find them; with {@code stopAtFailure}, no class after the first one in which a test
     * did not pass (a skipped test does not stop it). When it stops, the last
     * record is {@code {"stopped", classes not run}}. With no class first and no stopping, this
     * is {@link #run}.
     */
    public static List<String[]> runOrdered(String[] tests, String[] excluded, String testRoot,
            String[] first, boolean stopAtFailure) {
        if (first.length == 0 && !stopAtFailure) {
            return run(tests, excluded, testRoot);
        }
        java.util.LinkedHashMap<String, List<String>> byClass = new java.util.LinkedHashMap<>();
        if (tests.length == 0) {
            for (String[] rec : discover(testRoot, excluded)) {
                byClass.put(rec[0], new ArrayList<>(List.of(rec[0])));
            }
        } else {
            for (String test : tests) {
                int hash = test.indexOf('#');
                String owner = hash < 0 ? test : test.substring(0, hash);
                byClass.computeIfAbsent(owner, k -> new ArrayList<>()).add(test);
            }
        }
        List<String> order = new ArrayList<>();
        for (String name : first) {
            if (byClass.containsKey(name) && !order.contains(name)) {
                order.add(name);
            }
        }
        for (String name : byClass.keySet()) {
            if (!order.contains(name)) {
                order.add(name);
            }
        }
        List<String[]> records = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            List<String[]> ran =
                    run(byClass.get(order.get(i)).toArray(new String[0]), excluded, testRoot);
            records.addAll(ran);
            boolean failed = false;
            for (String[] rec : ran) {
                failed |= rec.length == 5 && !rec[2].equals("passed") && !rec[2].equals("skipped");
            }
            if (stopAtFailure && failed) {
                int left = order.size() - i - 1;
                if (left > 0) {
                    records.add(new String[] {"stopped", Integer.toString(left)});
                }
                break;
            }
        }
        return records;
    }

    /**
     * Creates a launcher (its test engines found and loaded), discovers nothing and runs the
     * helper's warm-up tests, so that the classes of JUnit are loaded before a candidate arrives;
     * loads no project class.
     */
    public static void prewarm() {
        Launcher launcher = launcher();
        launcher.discover(LauncherDiscoveryRequestBuilder.request().build());
        // The helper's own warm-up tests, where they were compiled in: the engines' execution
        // path is then loaded and compiled before the candidate's tests run.
        for (String warm : WARM_TESTS) {
            try {
                Class.forName(warm, false, Runner.class.getClassLoader());
            } catch (ClassNotFoundException absent) {
                continue;
            }
            for (int i = 0; i < 3; i++) {
                run(new String[] {warm}, new String[0], "");
            }
        }
    }

    /** The warm-up tests the helper may hold (see {@link #prewarm}). */
    private static final String[] WARM_TESTS = {
        "avrlab.fastpath.runner.WarmJupiter", "avrlab.fastpath.runner.WarmJUnit4"
    };

    /**
     * The test classes that {@code run} with no selection would run: every class under {@code
     * testRoot} that matches Surefire's includes and has at least one test, minus the classes in
     * {@code excluded}. One record per class: {class}. Discovery runs project code (JUnit 4
     * runners such as {@code Parameterized} call the class's methods), so the caller runs this
     * as it runs tests.
     */
    public static List<String[]> discover(String testRoot, String[] excluded) {
        LauncherDiscoveryRequest discovery =
                LauncherDiscoveryRequestBuilder.request()
                        .selectors(DiscoverySelectors.selectClasspathRoots(
                                Set.of(Path.of(testRoot))))
                        .filters(ClassNameFilter.includeClassNamePatterns(SUREFIRE_INCLUDES))
                        .configurationParameters(
                                Map.of("junit.jupiter.extensions.autodetection.enabled", "false"))
                        .build();
        org.junit.platform.launcher.TestPlan plan = launcher().discover(discovery);
        Set<String> skip = new HashSet<>(List.of(excluded));
        Set<String> classes = new java.util.TreeSet<>();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier child : plan.getChildren(root)) {
                String name = child.getSource()
                        .filter(s -> s instanceof org.junit.platform.engine.support.descriptor
                                .ClassSource)
                        .map(s -> ((org.junit.platform.engine.support.descriptor.ClassSource) s)
                                .getClassName())
                        .orElse(null);
                if (name != null && !skip.contains(name)
                        // A class with no test (all left out, or none) is not one to run.
                        && !plan.getChildren(child).isEmpty()) {
                    classes.add(name);
                }
            }
        }
        List<String[]> records = new ArrayList<>();
        for (String name : classes) {
            records.add(new String[] {name});
        }
        return records;
    }

    private static String className(TestIdentifier id) {
        return id.getSource()
                .map(
                        s ->
                                s instanceof MethodSource
                                        ? ((MethodSource) s).getClassName()
                                        : s instanceof org.junit.platform.engine.support.descriptor
                                                        .ClassSource
                                                ? ((org.junit.platform.engine.support.descriptor
                                                                        .ClassSource)
                                                                s)
                                                        .getClassName()
                                                : id.getDisplayName())
                .orElse(id.getDisplayName());
    }

    private static String[] record(TestIdentifier id, String status, double seconds, String msg) {
        String method =
                id.getSource()
                        .filter(s -> s instanceof MethodSource)
                        .map(s -> ((MethodSource) s).getMethodName())
                        .orElse(id.getDisplayName());
        // JUnit 4's parameterized invocations are "method[3]" in Surefire's reports; the vintage
        // engine keeps that name as the legacy reporting name.
        if (id.getUniqueId().startsWith("[engine:junit-vintage]")) {
            method = id.getLegacyReportingName();
        }
        return new String[] {className(id), method, status, Double.toString(seconds), msg};
    }

    private static String message(Throwable thrown) {
        if (thrown == null) {
            return "";
        }
        String text = thrown.getClass().getName() + ": " + thrown.getMessage();
        return text.length() > 2000 ? text.substring(0, 2000) : text;
    }

    /**
     * A launcher that discovers only test engines through ServiceLoader: listeners, filters and
     * session hooks found that way could be the project's (or a candidate's) code.
     */
    private static Launcher launcher() {
        LauncherConfig config =
                LauncherConfig.builder()
                        .enableTestExecutionListenerAutoRegistration(false)
                        .enablePostDiscoveryFilterAutoRegistration(false)
                        .enableLauncherSessionListenerAutoRegistration(false)
                        .enableLauncherDiscoveryListenerAutoRegistration(false)
                        .build();
        return LauncherFactory.create(config);
    }
}
