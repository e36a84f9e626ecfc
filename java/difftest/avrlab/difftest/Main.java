package avrlab.difftest;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
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
 * vulnerable state, the reference fix, a candidate), loads the vulnerable and the fixed version in
 * class loaders of their own, hands the candidate's classes to the candidate's JVM ({@link Exec},
 * in a sandbox of its own, through {@link Remote}), and calls the methods the candidate and the fix
 * changed on generated inputs in the reference and the candidate version, comparing what each call
 * shows as canonical forms ({@link Canon}, {@link Compare}): no code of the candidate runs in this
 * JVM, and the candidate's JVM never learns what the other versions showed. Where they differ, the
 * vulnerable version decides what the difference means: an input on which the fix itself changed
 * behaviour is one the fix is meant to block, and a candidate that blocks it differently is weaker
 * evidence than one that differs where the fix changed nothing, or that still behaves as the
 * vulnerable version. The candidate's JVM instruments its classes with JaCoCo ({@link Coverage}), so
 * the answer also says how many of its changed lines the inputs reached (as that JVM counts them:
 * evidence, not a verdict).
 *
 * Usage: {@code Main REQUEST}, a file of tab-separated lines written by avrlab; the result is
 * written as JSON to the file the request names, in a folder the candidate's JVM cannot reach. A
 * request with a {@code record} line instead records the arguments the task's tests pass to the
 * changed methods ({@link Record}), on the reference fix alone.
 */
public final class Main {
    private Main() {
    }

    /** Inputs per changed method drawn from the boundary values before the random ones. */
    private static final int EDGE_INPUTS = 500;
    /** How long the candidate's JVM may take to start and load its classes. */
    private static final long START_MILLIS = 60_000;

    /** Why the comparison cannot be made (the result is `not_applicable`). */
    static final class NotApplicable extends Exception {
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
        // The candidate runs in a JVM of its own (Exec): here it is only compiled (javac runs no
        // code of it: -proc:none) and handed over.
        List<String> remote = request.get("remote").get(0);
        Map<String, Invocation.Version> versions = new LinkedHashMap<>();
        List<String> projectClasses = new ArrayList<>();
        Map<String, Path> classesOf = new LinkedHashMap<>();
        for (List<String> line : request.get("version")) {
            String name = line.get(0);
            Path module = Path.of(line.get(1));
            // A version compiled before (by the task's recording) comes as its classes' folder.
            Path classes = line.size() > 2 ? Path.of(line.get(2)) : work.resolve("classes-" + name);
            if (line.size() <= 2) {
                compile(name, module.resolve("src/main/java"), classpath, classes);
            }
            classesOf.put(name, classes);
            if (name.equals("candidate")) {
                copy(classes, Path.of(remote.get(2)).resolve("plain"));
                continue;
            }
            List<URL> urls = new ArrayList<>();
            urls.add(classes.toUri().toURL());
            Path resources = module.resolve("src/main/resources");
            if (Files.isDirectory(resources)) {
                urls.add(resources.toUri().toURL());
            }
            for (Path entry : classpath) {
                urls.add(entry.toUri().toURL());
            }
            ClassLoader loader = new URLClassLoader("avrlab-" + name, urls.toArray(URL[]::new),
                    ClassLoader.getPlatformClassLoader());
            versions.put(name, new Invocation.Version(name, loader, type -> type.getClassLoader() == loader));
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
        Remote candidate = Remote.open(remote.get(0), remote.get(1), callMillis);
        candidate.start(START_MILLIS);
        if (candidate.broken() != null) {
            throw new NotApplicable(candidate.broken());
        }
        Invocation.Version vulnerable = versions.get("vulnerable");
        Invocation.Version reference = versions.get("reference");
        List<Inputs.Target> targets = targets(request.getOrDefault("target", List.of()), reference.loader());
        if (targets.isEmpty()) {
            throw new NotApplicable("no changed method of the candidate or the fix can be called");
        }
        Observe.Capture.install();
        Canon.probeWith(literals);
        List<String> fileNames = Scratch.fileNames(literals);
        // jqwik's generators keep state per session; outside its test engine a session is opened
        // explicitly (generation then runs on this thread only).
        net.jqwik.api.sessions.JqwikSession.start();
        Inputs inputs = new Inputs(literals, numbers, projectClasses, reference.loader());
        // Boundary values first: the literals and constants of the changed classes, in the fix's
        // version and the candidate's, with the tests' numbers and the type limits.
        List<Long> classNumbers = new ArrayList<>();
        List<String> edgeStrings = new ArrayList<>();
        for (Inputs.Target target : targets) {
            String file = target.className().replace('.', '/') + ".class";
            for (String name : List.of("reference", "candidate")) {
                Inputs.constantsOf(classesOf.get(name).resolve(file), classNumbers, edgeStrings);
            }
        }
        List<Long> edgeNumbers = new ArrayList<>(numbers);
        classNumbers.stream().filter(n -> !edgeNumbers.contains(n)).forEach(edgeNumbers::add);
        inputs.boundaries(edgeNumbers, classNumbers, edgeStrings);
        // How many inputs of each method draw from the boundary values before the random ones.
        int edgeRounds = Math.min(EDGE_INPUTS, perMethod / 2);
        Map<String, String> ungeneratable = new LinkedHashMap<>();
        int tried = 0;
        int divergent = 0;
        int vulnerableOnly = 0;
        boolean exhausted = false;
        Divergence strong = null;
        Divergence weak = null;
        int total = perMethod * targets.size();
        Path scratchRoot = Files.createDirectories(work.resolve("scratch"));
        Context context = new Context(vulnerable, reference, candidate, fileNames, callMillis, scratchRoot);
        Tally counts = new Tally();
        // The budget bounds the inputs' time: compiling and starting the versions come on top.
        long inputsStarted = System.nanoTime();
        for (int index = 0; index < total; index++) {
            if (System.nanoTime() - inputsStarted > budgetNanos) {
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
            inputs.edgeFirst(index / targets.size() < edgeRounds, index / targets.size());
            Inputs.Input input;
            try {
                input = inputs.input(target, Recipe.load(target.className(), reference.loader()));
            } catch (Inputs.Ungeneratable e) {
                ungeneratable.put(target.signature(), e.getMessage());
                continue;
            }
            tried++;
            Divergence found = context.diverge(index, inputSeed, input, counts);
            if (found == null) {
                continue;
            }
            int length = input.show().length();
            if (found.strong()) {
                divergent++;
                if (strong == null || length < strong.input().show().length()) {
                    strong = found;
                }
            } else {
                vulnerableOnly++;
                if (weak == null || length < weak.input().show().length()) {
                    weak = found;
                }
            }
        }
        int notComparable = counts.notComparable;
        int unstable = counts.unstable;
        Divergence chosen = strong != null ? strong : weak;
        Divergence shrunk = chosen == null ? null : context.shrink(chosen);
        if (strong == null && shrunk != null && shrunk.strong()) {
            // A simpler input on which the fix changed nothing and the candidate still differs: a
            // divergence of the strong kind after all.
            strong = shrunk;
            divergent++;
        }
        String witness = shrunk == null ? "null" : shrunk.json(chosen.input().show());
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
                .append(unstable).append(",\"not_comparable_inputs\":").append(notComparable)
                .append(",\"not_comparable_example\":").append(counts.example == null ? "null" : json(counts.example))
                .append(",\"budget_exhausted\":").append(exhausted).append(",\"seconds\":")
                .append(seconds(started));
        long[] reached = changedLines.isEmpty() ? null : candidate.coverage();
        candidate.end();
        if (reached != null) {
            out.append(",\"changed_lines\":").append(reached[0]).append(",\"changed_lines_reached\":").append(reached[1]);
        }
        out.append(",\"witness\":").append(witness).append('}');
        return out.toString();
    }

    /** Shrinking a witness stops after this many tried variants (a fixed number, so it is reproduced). */
    private static final int MAX_SHRINK_ATTEMPTS = 200;
    /** And after this much wall time, whatever the count (a slow or hanging call). */
    private static final long MAX_SHRINK_NANOS = 5_000_000_000L;

    /** A divergence found on one input: what each version showed, and whether it is the strong kind. */
    private record Divergence(int index, long inputSeed, Inputs.Input input, Observation reference,
            Observation candidate, Observation vulnerable, Compare.Result difference, boolean strong) {
        String json(String found) {
            String shown = input.show();
            return "{\"index\":" + index + ",\"input_seed\":" + inputSeed + ",\"method\":"
                    + Main.json(input.target().signature()) + ",\"input\":" + Main.json(Observe.cut(shown))
                    + ",\"found_as\":" + Main.json(Observe.cut(found)) + ",\"reference\":"
                    + Main.json(reference.text()) + ",\"candidate\":"
                    + Main.json(Observe.cut(candidate.text() + " (differs in " + difference.where() + ")"))
                    + ",\"vulnerable\":" + Main.json(vulnerable.text()) + "}";
        }
    }

    /** Inputs that showed nothing to compare: how many, and what the first showed. */
    private static final class Tally {
        int notComparable;
        int unstable;
        String example;
    }

    /** The three versions and how to call them. */
    private record Context(Invocation.Version vulnerable, Invocation.Version reference, Remote candidate, List<String> fileNames,
            long callMillis, Path scratchRoot) {
        /**
         * Compares the fix's version and the candidate's on one input: the divergence, or null where
         * they show the same, where what they show cannot be compared, or where the fix's version
         * shows something else the second time (each counted in {@code counts}).
         */
        Divergence diverge(int index, long inputSeed, Inputs.Input input, Tally counts)
                throws IOException, InterruptedException {
            Path scratch = scratchRoot.resolve("input-" + index);
            // The candidate's JVM works on the input while the fix's version runs here.
            int asked = candidate.ask(input);
            Observation fromReference = Invocation.execute(reference, input, scratch, fileNames, callMillis);
            if (fromReference.ending().startsWith("set-up call ") && !input.setup().isEmpty()) {
                // The receiver could not be set up (a setter that needs what the input lacks): the
                // call itself, on a receiver as constructed, is what can still show something. The
                // candidate's answer to the input as it was is read and left aside.
                candidate.answer(asked);
                input = new Inputs.Input(input.target(), input.receiver(), List.of(), input.args());
                asked = candidate.ask(input);
                fromReference = Invocation.execute(reference, input, scratch, fileNames, callMillis);
            }
            Observation fromCandidate = candidate.answer(asked);
            Compare.Result difference = fromCandidate.compare(fromReference);
            if (difference.outcome() == Compare.Outcome.SAME) {
                return null;
            }
            if (difference.outcome() == Compare.Outcome.NOT_COMPARABLE) {
                // Neither the same nor a divergence: counted, never a witness.
                counts.notComparable++;
                if (counts.example == null) {
                    counts.example = input.target().signature() + ", " + difference.where();
                }
                return null;
            }
            if (Invocation.execute(reference, input, scratch, fileNames, callMillis).differs(fromReference)) {
                // The reference itself shows something else the second time: nothing to compare.
                counts.unstable++;
                return null;
            }
            if (fromCandidate.ending().equals(Invocation.TIMED_OUT)
                    && !candidate.answer(candidate.ask(input)).ending().equals(Invocation.TIMED_OUT)) {
                // Past the call's limit once and not the second time: the machine was slow, not
                // the candidate's code (a loop runs out of time every time).
                counts.unstable++;
                return null;
            }
            Observation fromVulnerable = Invocation.execute(vulnerable, input, scratch, fileNames, callMillis);
            // The rule: where the fix did not change behaviour, any difference counts; where it
            // did (a vulnerable input), still behaving as the vulnerable version counts too, and
            // only blocking the input in another way is the weaker kind.
            boolean strong = !fromVulnerable.differs(fromReference) || !fromVulnerable.differs(fromCandidate);
            return new Divergence(index, inputSeed, input, fromReference, fromCandidate, fromVulnerable, difference,
                    strong);
        }

        /**
         * A minimal witness: the divergence's input made simpler one change at a time ({@link
         * Shrink}) while it still diverges at least as strongly, until no simpler variant does.
         */
        Divergence shrink(Divergence found) throws IOException, InterruptedException {
            Divergence current = found;
            double[] size = Shrink.size(found.input());
            long deadline = System.nanoTime() + MAX_SHRINK_NANOS;
            int attempts = 0;
            boolean progress = true;
            while (progress) {
                progress = false;
                for (Inputs.Input variant : Shrink.variants(current.input())) {
                    if (attempts >= MAX_SHRINK_ATTEMPTS || System.nanoTime() > deadline) {
                        return current;
                    }
                    double[] variantSize = Shrink.size(variant);
                    if (!Shrink.smaller(variantSize, size)) {
                        continue;
                    }
                    attempts++;
                    Divergence simpler = diverge(found.index(), found.inputSeed(), variant, new Tally());
                    if (simpler != null && (simpler.strong() || !found.strong())) {
                        current = simpler;
                        size = variantSize;
                        progress = true;
                        break;
                    }
                }
            }
            return current;
        }
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

    /** Copies a folder's files (the compiled candidate, into the folder its JVM reads). */
    static void copy(Path from, Path to) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(from)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
            Path target = to.resolve(from.relativize(file).toString());
            Files.createDirectories(target.getParent());
            Files.copy(file, target);
        }
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

    static Map<String, List<List<String>>> read(Path path) throws IOException {
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
