package avrlab.difftest;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

/**
 * One input run in one version: the receiver made and set up, the method called on a thread of its
 * own for at most the call's time, and what it showed observed as canonical forms. The tester runs
 * the vulnerable and the fixed versions so; the candidate's JVM ({@link Exec}) runs the candidate's.
 */
final class Invocation {
    /** How a call that ran past its limit ended. */
    static final String TIMED_OUT = "timed out";

    private Invocation() {
    }

    /** A version's code as a call sees it: its name, class loader, and which classes are its own. */
    record Version(String name, ClassLoader loader, Predicate<Class<?>> project) {
    }

    /** Runs one input in one version, on a thread of its own, and observes what it shows. */
    @SuppressWarnings("removal")
    static Observation execute(Version version, Inputs.Input input, Path scratchBase, List<String> fileNames,
            long callMillis) throws IOException, InterruptedException {
        Path scratch = scratchBase.resolveSibling(scratchBase.getFileName() + "-" + version.name() + "-" + System.nanoTime());
        // Only an input that names files gets a scratch folder (making one per call costs).
        if (input.usesScratch()) {
            Files.createDirectories(scratch);
            Scratch.populate(scratch, fileNames);
        }
        Observation[] shown = {Observation.of("no result")};
        Observe.Capture.start();
        Thread thread = new Thread(() -> shown[0] = call(version, input, scratch), "avrlab-difftest-call");
        thread.setDaemon(true);
        thread.setContextClassLoader(version.loader());
        thread.start();
        thread.join(callMillis);
        Observation result;
        if (thread.isAlive()) {
            try {
                thread.stop();
            } catch (UnsupportedOperationException e) {
                // A JDK without Thread.stop: the thread spins on until the JVM halts.
            }
            result = Observation.of(TIMED_OUT);
        } else {
            result = shown[0];
        }
        String printed = Observe.Capture.stop();
        StringBuilder rest = new StringBuilder();
        if (!printed.isEmpty()) {
            rest.append(" | printed ").append(Observe.literal(printed));
        }
        if (input.usesScratch()) {
            rest.append(" | files ").append(Scratch.list(scratch));
            Scratch.delete(scratch);
        }
        String restText = rest.toString().replace(scratch.toString(), "$SCRATCH");
        String text = Observe.cut((result.text() + rest).replace(scratch.toString(), "$SCRATCH"));
        return new Observation(text, result.ending(), result.value(), result.receiver(), result.args(), restText);
    }

    private static Observation call(Version version, Inputs.Input input, Path scratch) {
        ClassLoader loader = version.loader();
        String scratchName = scratch.toString();
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
                        String ending = "set-up call " + call.name() + " threw " + e.getCause().getClass().getName();
                        return new Observation(ending + " | receiver " + Observe.render(receiver, loader), ending, "N",
                                Canon.of(receiver, version.project(), scratchName), "N", "");
                    }
                }
            }
            args = makeAll(input.args(), loader, scratch);
        } catch (Recipe.Unmakeable | Inputs.Ungeneratable e) {
            return Observation.of("cannot make the input: " + e.getMessage());
        } catch (Throwable e) {
            return Observation.of("making the input threw " + e.getClass().getName());
        }
        StringBuilder out = new StringBuilder();
        String ending;
        Object value = null;
        try {
            value = executable instanceof Method method ? method.invoke(receiver, args)
                    : ((Constructor<?>) executable).newInstance(args);
            ending = "returned";
            out.append("returned ").append(Observe.render(value, loader));
        } catch (InvocationTargetException e) {
            // A thrown exception counts by its type: a fix's own message is how it is written.
            ending = "threw " + e.getCause().getClass().getName();
            out.append(ending);
        } catch (Throwable e) {
            ending = "could not call: " + e.getClass().getName();
            out.append(ending);
        }
        if (receiver != null) {
            out.append(" | receiver ").append(Observe.render(receiver, loader));
        }
        if (args.length > 0) {
            out.append(" | arguments after ").append(Observe.render(args, loader));
        }
        return new Observation(out.toString(), ending, Canon.of(value, version.project(), scratchName),
                Canon.of(receiver, version.project(), scratchName), Canon.of(args, version.project(), scratchName), "");
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
}
