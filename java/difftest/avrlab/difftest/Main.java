package avrlab.difftest;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * avrlab's differential tester. Compiles three versions of a project's main sources (the
 * vulnerable state, the reference fix, a candidate), loads each in a class loader of its own, and
 * calls the methods the candidate and the fix changed on generated inputs in the reference and the
 * candidate version, comparing what each call shows. Where they differ, the vulnerable version
 * decides what the difference means: an input on which the fix itself changed behaviour is one the
 * fix is meant to block, and a candidate that blocks it differently is weaker evidence than one
 * that differs where the fix changed nothing, or that still behaves as the vulnerable version.
 * The candidate's classes are instrumented with JaCoCo ({@link Coverage}), so the answer also says
 * how many of its changed lines the inputs reached.
 *
 * Usage: {@code Main REQUEST}, a file of tab-separated lines written by avrlab; the result is
 * written as JSON to the file the request names. A request with a {@code record} line instead
 * records the arguments the task's tests pass to the changed methods ({@link Record}). The host reads it as untrusted: candidate code
 * runs in this JVM.
 */
public final class Main {
    private Main() {
    }

    /** One compiled version of the project. */
    private record Version(String name, ClassLoader loader, Map<String, Executable> resolved) {
    }

    /** Why the comparison cannot be made (the result is `not_applicable`). */
    private static final class NotApplicable extends Exception {
        NotApplicable(String message) {
            super(message);
        }
    }

    public static void main(String[] args) throws IOException {
        Map<String, List<List<String>>> request = read(Path.of(args[0]));
        Path result = Path.of(one(request, "result"));
        if (request.containsKey("record")) {
            // The tests' output is captured while they run; this stream stays the log's.
            java.io.PrintStream log = System.err;
            try {
                Record.run(request, result);
            } catch (Throwable e) {
                // No seeds file: the host goes on with the tests' literals alone.
                log.println("recording the tests' arguments failed: " + e);
            }
            Runtime.getRuntime().halt(0);
        }
        long started = System.nanoTime();
        String json;
        try {
            json = run(request, started);
        } catch (NotApplicable e) {
            json = "{\"format_version\":1,\"verdict\":\"not_applicable\",\"reason\":" + json(e.getMessage())
                    + ",\"seconds\":" + seconds(started) + "}";
        } catch (Throwable e) {
            json = "{\"format_version\":1,\"verdict\":\"not_applicable\",\"reason\":"
                    + json("the differential tester failed: " + e) + ",\"seconds\":" + seconds(started) + "}";
        }
        Files.writeString(result, json, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
        // Threads the code under test left running (and calls that ran out of time) end here.
        Runtime.getRuntime().halt(0);
    }

    private static String run(Map<String, List<List<String>>> request, long started) throws Exception {
        long seed = Long.parseLong(one(request, "seed"));
        int perMethod = Integer.parseInt(one(request, "inputs"));
        long budgetNanos = Long.parseLong(one(request, "budget_ms")) * 1_000_000L;
        long callMillis = Long.parseLong(one(request, "call_ms"));
        Path work = Path.of(one(request, "work"));
        List<Path> classpath = new ArrayList<>();
        for (List<String> line : request.getOrDefault("classpath", List.of())) {
            classpath.add(Path.of(line.get(0)));
        }
        List<String> literals = new ArrayList<>();
        for (List<String> line : request.getOrDefault("string", List.of())) {
            literals.add(line.get(0));
        }
        List<Long> numbers = new ArrayList<>();
        for (List<String> line : request.getOrDefault("number", List.of())) {
            numbers.add(Long.parseLong(line.get(0)));
        }
        // The candidate's changed lines, by source path: their coverage is measured.
        Map<String, Set<Integer>> changedLines = new LinkedHashMap<>();
        for (List<String> line : request.getOrDefault("changed", List.of())) {
            changedLines.computeIfAbsent(line.get(0), k -> new TreeSet<>()).add(Integer.parseInt(line.get(1)));
        }
        Coverage coverage = null;
        Map<String, Version> versions = new LinkedHashMap<>();
        List<String> projectClasses = new ArrayList<>();
        for (List<String> line : request.get("version")) {
            String name = line.get(0);
            Path module = Path.of(line.get(1));
            Path classes = work.resolve("classes-" + name);
            compile(name, module.resolve("src/main/java"), classpath, classes);
            Path loaded = classes;
            if (name.equals("candidate") && !changedLines.isEmpty()) {
                loaded = work.resolve("classes-" + name + "-instrumented");
                coverage = Coverage.instrument(classes, loaded, changedLines);
            }
            List<URL> urls = new ArrayList<>();
            urls.add(loaded.toUri().toURL());
            Path resources = module.resolve("src/main/resources");
            if (Files.isDirectory(resources)) {
                urls.add(resources.toUri().toURL());
            }
            for (Path entry : classpath) {
                urls.add(entry.toUri().toURL());
            }
            ClassLoader loader = new URLClassLoader("avrlab-" + name, urls.toArray(URL[]::new),
                    ClassLoader.getPlatformClassLoader());
            versions.put(name, new Version(name, loader, new LinkedHashMap<>()));
            if (name.equals("reference")) {
                try (Stream<Path> walk = Files.walk(classes)) {
                    walk.map(p -> classes.relativize(p).toString())
                            .filter(p -> p.endsWith(".class") && !p.contains("package-info") && !p.contains("module-info"))
                            .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
                            .sorted()
                            .forEach(projectClasses::add);
                }
            }
        }
        Version vulnerable = versions.get("vulnerable");
        Version reference = versions.get("reference");
        Version candidate = versions.get("candidate");
        List<Inputs.Target> targets = targets(request.getOrDefault("target", List.of()), reference.loader());
        if (targets.isEmpty()) {
            throw new NotApplicable("no changed method of the candidate or the fix can be called");
        }
        Observe.Capture.install();
        List<String> fileNames = Scratch.fileNames(literals);
        // jqwik's generators keep state per session; outside its test engine a session is opened
        // explicitly (generation then runs on this thread only).
        net.jqwik.api.sessions.JqwikSession.start();
        Inputs inputs = new Inputs(literals, numbers, projectClasses, reference.loader());
        Map<String, String> ungeneratable = new LinkedHashMap<>();
        int tried = 0;
        int divergent = 0;
        int vulnerableOnly = 0;
        int unstable = 0;
        boolean exhausted = false;
        String strong = null;
        String weak = null;
        int strongLength = Integer.MAX_VALUE;
        int weakLength = Integer.MAX_VALUE;
        int total = perMethod * targets.size();
        Path scratchRoot = Files.createDirectories(work.resolve("scratch"));
        for (int index = 0; index < total; index++) {
            if (System.nanoTime() - started > budgetNanos) {
                exhausted = true;
                break;
            }
            // Enough strong witnesses to pick a short one.
            if (divergent >= 25) {
                break;
            }
            Inputs.Target target = targets.get(index % targets.size());
            if (ungeneratable.containsKey(target.signature())) {
                continue;
            }
            long inputSeed = seed * 1_000_003L + index;
            inputs.reseed(inputSeed);
            Inputs.Input input;
            try {
                input = inputs.input(target, Recipe.load(target.className(), reference.loader()));
            } catch (Inputs.Ungeneratable e) {
                ungeneratable.put(target.signature(), e.getMessage());
                continue;
            }
            tried++;
            Path scratch = scratchRoot.resolve("input-" + index);
            String fromReference = execute(reference, input, scratch, fileNames, callMillis);
            String fromCandidate = execute(candidate, input, scratch, fileNames, callMillis);
            if (fromCandidate.equals(fromReference)) {
                continue;
            }
            if (!execute(reference, input, scratch, fileNames, callMillis).equals(fromReference)) {
                // The reference itself shows something else the second time: nothing to compare.
                unstable++;
                continue;
            }
            String fromVulnerable = execute(vulnerable, input, scratch, fileNames, callMillis);
            String shown = input.show();
            String witness = "{\"index\":" + index + ",\"input_seed\":" + inputSeed + ",\"method\":"
                    + json(target.signature()) + ",\"input\":" + json(Observe.cut(shown)) + ",\"reference\":"
                    + json(fromReference) + ",\"candidate\":" + json(fromCandidate) + ",\"vulnerable\":"
                    + json(fromVulnerable) + "}";
            // The rule: where the fix did not change behaviour, any difference counts; where it
            // did (a vulnerable input), still behaving as the vulnerable version counts too, and
            // only blocking the input in another way is the weaker kind.
            if (fromVulnerable.equals(fromReference) || fromVulnerable.equals(fromCandidate)) {
                divergent++;
                if (shown.length() < strongLength) {
                    strongLength = shown.length();
                    strong = witness;
                }
            } else {
                vulnerableOnly++;
                if (shown.length() < weakLength) {
                    weakLength = shown.length();
                    weak = witness;
                }
            }
        }
        if (tried == 0) {
            throw new NotApplicable("no inputs can be generated: " + String.join("; ", ungeneratable.values()));
        }
        String verdict = strong != null ? "divergent" : weak != null ? "divergent_on_vulnerable_inputs" : "no_divergence";
        List<String> methods = targets.stream().map(Inputs.Target::signature).toList();
        StringBuilder out = new StringBuilder("{\"format_version\":1,\"verdict\":\"").append(verdict).append('"');
        out.append(",\"reason\":").append(json(ungeneratable.isEmpty() ? ""
                : "inputs not generated for " + String.join("; ", ungeneratable.keySet())));
        out.append(",\"methods\":[");
        for (int i = 0; i < methods.size(); i++) {
            out.append(i == 0 ? "" : ",").append(json(methods.get(i)));
        }
        out.append("],\"inputs\":").append(tried).append(",\"divergent_inputs\":").append(divergent)
                .append(",\"vulnerable_only_inputs\":").append(vulnerableOnly).append(",\"unstable_inputs\":")
                .append(unstable).append(",\"budget_exhausted\":").append(exhausted).append(",\"seconds\":")
                .append(seconds(started));
        if (coverage != null) {
            long[] reached = coverage.reached();
            out.append(",\"changed_lines\":").append(reached[0]).append(",\"changed_lines_reached\":").append(reached[1]);
        }
        out.append(",\"witness\":").append(strong != null ? strong : weak != null ? weak : "null")
                .append('}');
        return out.toString();
    }

    /** Runs one input in one version, on a thread of its own, and renders what it shows. */
    @SuppressWarnings("removal")
    private static String execute(Version version, Inputs.Input input, Path scratchBase, List<String> fileNames,
            long callMillis) throws IOException, InterruptedException {
        Path scratch = scratchBase.resolveSibling(scratchBase.getFileName() + "-" + version.name() + "-" + System.nanoTime());
        // Only an input that names files gets a scratch folder (making one per call costs).
        if (input.usesScratch()) {
            Files.createDirectories(scratch);
            Scratch.populate(scratch, fileNames);
        }
        String[] shown = {"no result"};
        Observe.Capture.start();
        Thread thread = new Thread(() -> shown[0] = call(version, input, scratch), "avrlab-difftest-call");
        thread.setDaemon(true);
        thread.setContextClassLoader(version.loader());
        thread.start();
        thread.join(callMillis);
        String result;
        if (thread.isAlive()) {
            try {
                thread.stop();
            } catch (UnsupportedOperationException e) {
                // A JDK without Thread.stop: the thread spins on until the JVM halts.
            }
            result = "timed out";
        } else {
            result = shown[0];
        }
        String printed = Observe.Capture.stop();
        StringBuilder out = new StringBuilder(result);
        if (!printed.isEmpty()) {
            out.append(" | printed ").append(Observe.literal(printed));
        }
        if (input.usesScratch()) {
            out.append(" | files ").append(Scratch.list(scratch));
        }
        if (input.usesScratch()) {
            Scratch.delete(scratch);
        }
        return Observe.cut(out.toString().replace(scratch.toString(), "$SCRATCH"));
    }

    private static String call(Version version, Inputs.Input input, Path scratch) {
        ClassLoader loader = version.loader();
        Inputs.Target target = input.target();
        Object receiver = null;
        Object[] args;
        Executable executable;
        try {
            Class<?> type = Recipe.load(target.className(), loader);
            executable = target.isConstructor() ? constructor(type, target.params()) : method(type, target.name(), target.params());
            executable.setAccessible(true);
            if (input.receiver() != null) {
                receiver = input.receiver().make(loader, scratch);
                for (Inputs.Call call : input.setup()) {
                    Method method = method(type, call.name(), call.params());
                    method.setAccessible(true);
                    Object[] callArgs = makeAll(call.args(), loader, scratch);
                    try {
                        method.invoke(receiver, callArgs);
                    } catch (InvocationTargetException e) {
                        return "set-up call " + call.name() + " threw " + e.getCause().getClass().getName()
                                + " | receiver " + Observe.render(receiver, loader);
                    }
                }
            }
            args = makeAll(input.args(), loader, scratch);
        } catch (Recipe.Unmakeable | Inputs.Ungeneratable e) {
            return "cannot make the input: " + e.getMessage();
        } catch (Throwable e) {
            return "making the input threw " + e.getClass().getName();
        }
        StringBuilder out = new StringBuilder();
        try {
            Object result = executable instanceof Method method ? method.invoke(receiver, args)
                    : ((Constructor<?>) executable).newInstance(args);
            out.append("returned ").append(Observe.render(result, loader));
        } catch (InvocationTargetException e) {
            out.append("threw ").append(e.getCause().getClass().getName());
        } catch (Throwable e) {
            out.append("could not call: ").append(e.getClass().getName());
        }
        if (receiver != null) {
            out.append(" | receiver ").append(Observe.render(receiver, loader));
        }
        if (args.length > 0) {
            out.append(" | arguments after ").append(Observe.render(args, loader));
        }
        return out.toString();
    }

    private static Object[] makeAll(List<Recipe> recipes, ClassLoader loader, Path scratch) throws Throwable {
        Object[] out = new Object[recipes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = recipes.get(i).make(loader, scratch);
        }
        return out;
    }

    static Method method(Class<?> type, String name, List<String> params) throws Inputs.Ungeneratable {
        for (Method method : type.getDeclaredMethods()) {
            if (method.getName().equals(name) && Inputs.names(method.getParameterTypes()).equals(params)) {
                return method;
            }
        }
        throw new Inputs.Ungeneratable(type.getName() + " has no method " + name + params);
    }

    static Constructor<?> constructor(Class<?> type, List<String> params) throws Inputs.Ungeneratable {
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            if (Inputs.names(constructor.getParameterTypes()).equals(params)) {
                return constructor;
            }
        }
        throw new Inputs.Ungeneratable(type.getName() + " has no constructor " + params);
    }

    /**
     * The methods to call, found in the reference version: each named method (every overload),
     * and, where a named method is private, the class's non-private methods instead, which are
     * what other code can observe of a private change. The name {@code <fields>} stands for a
     * change outside every method (a field's initializer, say): the class's non-private methods
     * are what can observe it too.
     */
    private static List<Inputs.Target> targets(List<List<String>> lines, ClassLoader loader) throws NotApplicable {
        List<Inputs.Target> out = new ArrayList<>();
        for (List<String> line : lines) {
            Class<?> type;
            try {
                type = Recipe.load(line.get(0), loader);
            } catch (Recipe.Unmakeable e) {
                continue;
            }
            if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
                continue;
            }
            String name = line.get(1);
            boolean constructor = name.equals("<init>") || name.equals(type.getSimpleName());
            List<Executable> named = new ArrayList<>();
            boolean hidden = name.equals("<fields>");
            if (hidden) {
                // Nothing is named: every non-private method is chosen below.
            } else if (constructor) {
                named.addAll(List.of(type.getDeclaredConstructors()));
            } else {
                for (Method method : type.getDeclaredMethods()) {
                    if (method.getName().equals(name) && !method.isSynthetic() && !method.isBridge()) {
                        named.add(method);
                    }
                }
            }
            List<Executable> chosen = new ArrayList<>();
            for (Executable executable : named) {
                if (Modifier.isPrivate(executable.getModifiers())) {
                    hidden = true;
                } else {
                    chosen.add(executable);
                }
            }
            if (hidden) {
                for (Method method : type.getDeclaredMethods()) {
                    if (!Modifier.isPrivate(method.getModifiers()) && !method.isSynthetic()
                            && !Modifier.isAbstract(method.getModifiers())) {
                        chosen.add(method);
                    }
                }
            }
            for (Executable executable : chosen) {
                Inputs.Target target = new Inputs.Target(type.getName(), executable instanceof Constructor ? "<init>" : executable.getName(),
                        Inputs.names(executable.getParameterTypes()), Modifier.isStatic(executable.getModifiers()),
                        executable instanceof Constructor);
                if (!out.contains(target)) {
                    out.add(target);
                }
            }
        }
        out.sort(java.util.Comparator.comparing(Inputs.Target::signature));
        return out;
    }

    static void compile(String name, Path sources, List<Path> classpath, Path out) throws Exception {
        List<File> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).sorted().map(Path::toFile).toList();
        }
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new NotApplicable("the JDK has no Java compiler");
        }
        StandardJavaFileManager files2 = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>(List.of("-d", out.toString(), "-nowarn", "-proc:none", "-encoding", "UTF-8",
                "-implicit:class"));
        if (!classpath.isEmpty()) {
            options.add("-cp");
            options.add(String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
        }
        StringWriter log = new StringWriter();
        boolean ok = javac.getTask(log, files2, null, options, null, files2.getJavaFileObjectsFromFiles(files)).call();
        if (!ok) {
            String first = log.toString().lines().filter(l -> l.contains("error")).findFirst().orElse("");
            throw new NotApplicable("the " + name + " version does not compile here: " + first);
        }
    }

    private static Map<String, List<List<String>>> read(Path path) throws IOException {
        Map<String, List<List<String>>> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] fields = line.split("\t", -1);
            List<String> values = new ArrayList<>();
            for (int i = 1; i < fields.length; i++) {
                values.add(unescape(fields[i]));
            }
            out.computeIfAbsent(fields[0], k -> new ArrayList<>()).add(values);
        }
        return out;
    }

    static String one(Map<String, List<List<String>>> request, String key) {
        List<List<String>> lines = request.get(key);
        if (lines == null || lines.isEmpty() || lines.get(0).isEmpty()) {
            throw new IllegalArgumentException("the request has no " + key);
        }
        return lines.get(0).get(0);
    }

    /** The request's escapes: `\\t`, `\\n`, `\\r` and `\\\\`. */
    private static String unescape(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                char next = text.charAt(++i);
                out.append(switch (next) {
                    case 't' -> '\t';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case '0' -> '\0';
                    default -> next;
                });
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String seconds(long started) {
        return String.format(Locale.ROOT, "%.3f", (System.nanoTime() - started) / 1e9);
    }

    static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || Character.isSurrogate(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
