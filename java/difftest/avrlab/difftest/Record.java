package avrlab.difftest;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;

/**
 * Records the argument values the task's tests pass to the methods the fix changed, to seed the
 * generators: the reference version's classes are rewritten with ASM so that each such method
 * hands its arguments to a recorder on entry, the test sources are compiled against them, and the
 * PoV tests (then the other tests, while time is left) are called. Only strings, characters and
 * integers are kept, each once, bounded in number and length. The tests are called the way JUnit 4
 * and 5 would call a plain test method (a fresh instance, the before- and after-methods around
 * it); whether a test passes does not matter here, only what it passed to the changed methods.
 *
 * The recorder is reached through the system properties (a {@link BiConsumer} under {@link #KEY}):
 * the project's class loader sees only the platform's classes, not this helper's.
 */
final class Record {
    static final String KEY = "avrlab.difftest.record";
    private static final int MAX_STRINGS = 200;
    private static final int MAX_NUMBERS = 100;
    private static final int MAX_STRING_CHARS = 400;
    /** The most test methods called. */
    private static final int MAX_TESTS = 300;

    private final Set<String> strings = new LinkedHashSet<>();
    private final Set<Long> numbers = new LinkedHashSet<>();

    private Record() {
    }

    /**
     * Runs the recording the request asks for and writes the seeds file: `string<TAB>value` and
     * `number<TAB>value` lines, escaped as the request is.
     */
    static void run(Map<String, List<List<String>>> request, Path out) throws Exception {
        long budgetNanos = Long.parseLong(Main.one(request, "budget_ms")) * 1_000_000L;
        long callMillis = Long.parseLong(Main.one(request, "call_ms"));
        Path work = Path.of(Main.one(request, "work"));
        Path module = Path.of(Main.one(request, "module"));
        List<Path> classpath = new ArrayList<>();
        for (List<String> line : request.getOrDefault("classpath", List.of())) {
            classpath.add(Path.of(line.get(0)));
        }
        Map<String, Set<String>> targets = new java.util.HashMap<>();
        for (List<String> line : request.getOrDefault("target", List.of())) {
            targets.computeIfAbsent(line.get(0).replace('.', '/'), k -> new LinkedHashSet<>()).add(line.get(1));
        }
        Path classes = work.resolve("classes-reference");
        Main.compile("reference", module.resolve("src/main/java"), classpath, classes);
        // The vulnerable version's main classes too, which the comparisons then take as they are.
        for (List<String> line : request.getOrDefault("vulnerable", List.of())) {
            Path vulnerable = work.resolve("classes-vulnerable");
            try {
                Main.compile("vulnerable", Path.of(line.get(0)).resolve("src/main/java"), classpath, vulnerable);
            } catch (Main.NotApplicable e) {
                // Left to each comparison, which says so.
                Scratch.delete(vulnerable);
            }
        }
        Path recorded = work.resolve("classes-recorded");
        rewrite(classes, recorded, targets);
        Path testClasses = work.resolve("test-classes");
        List<Path> testClasspath = new ArrayList<>();
        testClasspath.add(classes);
        testClasspath.addAll(classpath);
        Main.compile("reference's test", module.resolve("src/test/java"), testClasspath, testClasses);
        List<URL> urls = new ArrayList<>();
        urls.add(recorded.toUri().toURL());
        urls.add(testClasses.toUri().toURL());
        for (String resources : List.of("src/test/resources", "src/main/resources")) {
            if (Files.isDirectory(module.resolve(resources))) {
                urls.add(module.resolve(resources).toUri().toURL());
            }
        }
        for (Path entry : classpath) {
            urls.add(entry.toUri().toURL());
        }
        ClassLoader loader = new URLClassLoader("avrlab-record", urls.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader());
        Record record = new Record();
        BiConsumer<String, Object[]> recorder = (method, args) -> record.keep(args);
        System.getProperties().put(KEY, recorder);
        // The PoV tests first, then every other test class's tests while time and count allow.
        List<String[]> tests = new ArrayList<>();
        for (List<String> line : request.getOrDefault("pov_test", List.of())) {
            tests.add(new String[] {line.get(0), line.get(1)});
        }
        if (!request.getOrDefault("regression", List.of()).isEmpty()) {
            try (Stream<Path> walk = Files.walk(testClasses)) {
                walk.map(p -> testClasses.relativize(p).toString())
                        .filter(p -> p.endsWith(".class") && !p.contains("$"))
                        .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
                        .sorted()
                        .forEach(name -> tests.add(new String[] {name, ""}));
            }
        }
        Observe.Capture.install();
        // The budget is the tests' (compiling came before it).
        long started = System.nanoTime();
        int called = 0;
        Set<String> done = new LinkedHashSet<>();
        for (String[] test : tests) {
            Class<?> type;
            try {
                type = Class.forName(test[0], false, loader);
            } catch (Throwable e) {
                continue;
            }
            for (Method method : testMethods(type)) {
                if (!test[1].isEmpty() && !method.getName().equals(test[1])) {
                    continue;
                }
                if (!done.add(type.getName() + "#" + method.getName())) {
                    continue;
                }
                if (System.nanoTime() - started > budgetNanos || called >= MAX_TESTS) {
                    record.write(out);
                    return;
                }
                called++;
                callTest(type, method, loader, callMillis);
            }
        }
        record.write(out);
    }

    /** Keeps the values of the kinds the generators take. */
    private synchronized void keep(Object[] args) {
        for (Object arg : args) {
            if (arg instanceof String text) {
                if (text.length() <= MAX_STRING_CHARS && strings.size() < MAX_STRINGS) {
                    strings.add(text);
                }
            } else if (arg instanceof Character c) {
                if (strings.size() < MAX_STRINGS) {
                    strings.add(c.toString());
                }
            } else if (arg instanceof Integer || arg instanceof Long || arg instanceof Short || arg instanceof Byte) {
                if (numbers.size() < MAX_NUMBERS) {
                    numbers.add(((Number) arg).longValue());
                }
            }
        }
    }

    private synchronized void write(Path out) throws java.io.IOException {
        StringBuilder text = new StringBuilder();
        for (String s : strings) {
            text.append("string\t").append(escape(s)).append('\n');
        }
        for (long n : numbers) {
            text.append("number\t").append(n).append('\n');
        }
        Files.writeString(out, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
    }

    /** The request's escapes, the other way. */
    private static String escape(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\0' -> out.append("\\0");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A class's test methods: annotated `Test` (JUnit 4 or 5), no parameters, not static. */
    private static List<Method> testMethods(Class<?> type) {
        List<Method> out = new ArrayList<>();
        try {
            if (Modifier.isAbstract(type.getModifiers()) || type.isInterface()) {
                return out;
            }
            for (Method method : type.getDeclaredMethods()) {
                if (annotated(method, "Test") && method.getParameterCount() == 0
                        && !Modifier.isStatic(method.getModifiers())) {
                    out.add(method);
                }
            }
        } catch (Throwable e) {
            // A class whose methods cannot be listed (a missing dependency) has no tests here.
        }
        out.sort(java.util.Comparator.comparing(Method::getName));
        return out;
    }

    private static boolean annotated(Method method, String... simpleNames) {
        for (Annotation annotation : method.getAnnotations()) {
            String name = annotation.annotationType().getSimpleName();
            for (String wanted : simpleNames) {
                if (name.equals(wanted)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The methods of a class and its superclasses annotated with one of `names`, superclass first. */
    private static List<Method> lifecycle(Class<?> type, boolean isStatic, String... names) {
        List<Method> out = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            List<Method> own = new ArrayList<>();
            for (Method method : c.getDeclaredMethods()) {
                if (annotated(method, names) && method.getParameterCount() == 0
                        && Modifier.isStatic(method.getModifiers()) == isStatic) {
                    own.add(method);
                }
            }
            out.addAll(0, own);
        }
        return out;
    }

    /** Calls one test, with its class's set-up and tear-down, on a thread of its own. */
    @SuppressWarnings("removal")
    private static void callTest(Class<?> type, Method test, ClassLoader loader, long callMillis)
            throws InterruptedException {
        Thread thread = new Thread(() -> {
            try {
                for (Method method : lifecycle(type, true, "BeforeClass", "BeforeAll")) {
                    method.setAccessible(true);
                    method.invoke(null);
                }
                var constructor = type.getDeclaredConstructor();
                constructor.setAccessible(true);
                Object instance = constructor.newInstance();
                for (Method method : lifecycle(type, false, "Before", "BeforeEach")) {
                    method.setAccessible(true);
                    method.invoke(instance);
                }
                test.setAccessible(true);
                try {
                    test.invoke(instance);
                } finally {
                    for (Method method : lifecycle(type, false, "After", "AfterEach")) {
                        method.setAccessible(true);
                        method.invoke(instance);
                    }
                }
            } catch (Throwable e) {
                // A failing test still passed its arguments before it failed.
            }
        }, "avrlab-difftest-record");
        thread.setDaemon(true);
        thread.setContextClassLoader(loader);
        Observe.Capture.start();
        thread.start();
        thread.join(callMillis);
        if (thread.isAlive()) {
            try {
                thread.stop();
            } catch (UnsupportedOperationException e) {
                // A JDK without Thread.stop: the thread spins on until the JVM halts.
            }
        }
        Observe.Capture.stop();
    }

    /**
     * Copies the classes, rewriting the named methods of each target class (every method for
     * `<fields>`, constructors for `<init>`) to hand their arguments to the recorder first.
     */
    private static void rewrite(Path classes, Path out, Map<String, Set<String>> targets) throws Exception {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
            String relative = classes.relativize(file).toString();
            Path copy = out.resolve(relative);
            Files.createDirectories(copy.getParent());
            byte[] bytes = Files.readAllBytes(file);
            String internal = relative.endsWith(".class") ? relative.substring(0, relative.length() - 6) : null;
            Set<String> names = internal == null ? null : targets.get(internal.replace(java.io.File.separatorChar, '/'));
            if (names != null) {
                bytes = rewriteClass(bytes, names);
            }
            Files.write(copy, bytes);
        }
    }

    private static byte[] rewriteClass(byte[] bytes, Set<String> names) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        String owner = reader.getClassName();
        boolean all = names.contains("<fields>");
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                boolean body = (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0;
                boolean wanted = all ? !name.equals("<clinit>") : names.contains(name);
                if (!body || !wanted || Type.getArgumentTypes(descriptor).length == 0) {
                    return next;
                }
                String key = owner + "." + name;
                return new AdviceAdapter(Opcodes.ASM9, next, access, name, descriptor) {
                    @Override
                    protected void onMethodEnter() {
                        // ((BiConsumer) System.getProperties().get(KEY)).accept(key, args): straight
                        // code (no branch, so the class's stack map frames stay valid); these
                        // classes are only loaded while the recorder is set.
                        Type properties = Type.getType(java.util.Properties.class);
                        Type consumer = Type.getType(BiConsumer.class);
                        Type object = Type.getType(Object.class);
                        invokeStatic(Type.getType(System.class),
                                new org.objectweb.asm.commons.Method("getProperties", properties, new Type[0]));
                        push(KEY);
                        invokeVirtual(properties,
                                new org.objectweb.asm.commons.Method("get", object, new Type[] {object}));
                        checkCast(consumer);
                        push(key);
                        loadArgArray();
                        invokeInterface(consumer, new org.objectweb.asm.commons.Method("accept", Type.VOID_TYPE,
                                new Type[] {object, object}));
                    }
                };
            }
        }, ClassReader.EXPAND_FRAMES);
        return writer.toByteArray();
    }
}
