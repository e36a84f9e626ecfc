package avrlab.difftest;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.BaseStream;

/**
 * Whether two values, one from each of two versions of a project, behave the same for whoever
 * uses them: compared through what a caller can observe, never through {@code toString()} or an
 * identity hash. The rules, in order:
 * <ul>
 * <li>strings and other character sequences by their characters; JDK numbers, booleans, characters,
 * paths, dates and times, and every other JDK class that defines {@code equals} by that
 * {@code equals};</li>
 * <li>regular expressions by what they match: on every probe (the task's literals and a fixed set of
 * short texts), whether the whole text matches and what each {@code find()} finds, group by
 * group;</li>
 * <li>arrays, lists, queues, sorted and insertion-ordered sets and maps element by element in
 * order; other sets and maps as multisets (their elements sorted by a stable rendering first);
 * streams and iterators by the elements they yield; byte buffers by their remaining bytes;
 * {@code Optional} by presence and content;</li>
 * <li>a returned exception by its type and its message (what a caller can read of it);</li>
 * <li>objects of the project (and of its dependencies, which each version loads for itself) field by
 * field, for the fields both versions declare: their {@code equals} cannot take the other
 * version's object, and a field only one version has is how it is written, not what it does;</li>
 * <li>any other JDK object (one that keeps identity equality, a factory, a stream of bytes) is
 * <em>not comparable</em> unless it is the same object: neither the same nor a divergence.</li>
 * </ul>
 */
final class Compare {
    /** How two values compare. */
    enum Outcome {
        SAME,
        DIFFERENT,
        NOT_COMPARABLE
    }

    /** An outcome and, where the values differ or cannot be compared, where. */
    record Result(Outcome outcome, String where) {
        static final Result SAME = new Result(Outcome.SAME, "");

        boolean same() {
            return outcome == Outcome.SAME;
        }
    }

    private static final int MAX_DEPTH = 8;
    /** Elements compared of a stream or an iterator, at most (an endless one stops there). */
    private static final int MAX_ELEMENTS = 1000;
    /** Characters a probe's matching may read before it counts as too slow (a backtracking blow-up). */
    private static final long MAX_READS = 200_000;
    /** Short texts every regular expression is probed with, besides the task's literals. */
    private static final List<String> FIXED_PROBES = List.of("", " ", "a", "A", "0", "1", "-1", "\n", "\t", "\0",
            "abc", "ABC", "a b", "A B", "A  B", "1 A", "1. A", "1.2 AB CD", "12.3.4\tX Y", "1 ab", "x1", "a.b",
            "a/b", "../a", "<a href=\"x\">", "'", "\"", "&amp;", "${x}", "a\nb", "A\r\nB", "foo@example.com",
            "http://example.com/a?b=c", "2024-01-31", "-12.50", "1e3", "\u00e9", "AAAAAAAAAAAAAAAAAAAAAAAA!");

    private static List<String> probes = FIXED_PROBES;

    private Compare() {
    }

    /** The task's literals join the fixed probes of regular expressions. */
    static void probeWith(List<String> literals) {
        List<String> all = new ArrayList<>(FIXED_PROBES);
        for (String literal : literals) {
            if (all.size() >= FIXED_PROBES.size() + 60) {
                break;
            }
            if (literal.length() <= 200 && !all.contains(literal)) {
                all.add(literal);
            }
        }
        probes = List.copyOf(all);
    }

    /**
     * Compares a value of one version (loaded by {@code la}, its call's scratch folder {@code sa})
     * with one of another; each call has a scratch folder of its own, so a path or a text that
     * names one is compared with the folder's name taken out ({@code null}: the call had none).
     */
    static Result values(Object a, ClassLoader la, String sa, Object b, ClassLoader lb, String sb) {
        scratchA = sa;
        scratchB = sb;
        return compare(a, la, b, lb, "", 0, new IdentityHashMap<>());
    }

    private static String scratchA;
    private static String scratchB;

    private static String unscratched(String text, String scratch) {
        return scratch == null || text == null ? text : text.replace(scratch, "$SCRATCH");
    }

    private static Result differ(String where, String what) {
        return new Result(Outcome.DIFFERENT, (where.isEmpty() ? "the value" : where) + ": " + what);
    }

    private static Result opaque(String where, String what) {
        return new Result(Outcome.NOT_COMPARABLE, (where.isEmpty() ? "the value" : where) + ": " + what);
    }

    private static Result compare(Object a, ClassLoader la, Object b, ClassLoader lb, String where, int depth,
            IdentityHashMap<Object, Object> open) {
        if (a == null || b == null) {
            return a == b ? Result.SAME : differ(where, a == null ? "null in the first" : "null in the second");
        }
        if (a == b) {
            return Result.SAME;
        }
        if (a instanceof CharSequence x && b instanceof CharSequence y) {
            boolean same = unscratched(x.toString(), scratchA).equals(unscratched(y.toString(), scratchB));
            return same ? Result.SAME : differ(where, "other characters");
        }
        if ((a instanceof java.nio.file.Path || a instanceof java.io.File)
                && (b instanceof java.nio.file.Path || b instanceof java.io.File)) {
            // Paths are equal when their names are (Path.equals compares no files either).
            boolean same = a.getClass().getName().equals(b.getClass().getName())
                    && unscratched(a.toString(), scratchA).equals(unscratched(b.toString(), scratchB));
            return same ? Result.SAME : differ(where, "another path");
        }
        if (a instanceof Pattern x && b instanceof Pattern y) {
            return patterns(x, y, where);
        }
        if (a instanceof Throwable x && b instanceof Throwable y) {
            if (!x.getClass().getName().equals(y.getClass().getName())) {
                return differ(where, x.getClass().getName() + " against " + y.getClass().getName());
            }
            boolean same = java.util.Objects.equals(unscratched(message(x), scratchA), unscratched(message(y), scratchB));
            return same ? Result.SAME : differ(where, "another message");
        }
        if (a instanceof Enum<?> x && b instanceof Enum<?> y) {
            boolean same = x.getDeclaringClass().getName().equals(y.getDeclaringClass().getName())
                    && x.name().equals(y.name());
            return same ? Result.SAME : differ(where, x.name() + " against " + y.name());
        }
        if (a instanceof Class<?> x && b instanceof Class<?> y) {
            return x.getName().equals(y.getName()) ? Result.SAME : differ(where, x.getName() + " against " + y.getName());
        }
        if (depth >= MAX_DEPTH) {
            return opaque(where, "nested too deep to compare");
        }
        if (open.get(a) == b) {
            // A cycle: the pair is being compared further up.
            return Result.SAME;
        }
        open.put(a, b);
        try {
            return structure(a, la, b, lb, where, depth, open);
        } catch (RuntimeException | LinkageError e) {
            return opaque(where, "comparing it threw " + e.getClass().getName());
        } finally {
            open.remove(a);
        }
    }

    private static Result structure(Object a, ClassLoader la, Object b, ClassLoader lb, String where, int depth,
            IdentityHashMap<Object, Object> open) {
        if (a.getClass().isArray() && b.getClass().isArray()) {
            List<Object> x = new ArrayList<>();
            List<Object> y = new ArrayList<>();
            for (int i = 0; i < Array.getLength(a); i++) {
                x.add(Array.get(a, i));
            }
            for (int i = 0; i < Array.getLength(b); i++) {
                y.add(Array.get(b, i));
            }
            return ordered(x, la, y, lb, where, depth, open);
        }
        if (a instanceof ByteBuffer x && b instanceof ByteBuffer y) {
            return x.duplicate().equals(y.duplicate()) ? Result.SAME : differ(where, "other remaining bytes");
        }
        if (a instanceof Optional<?> x && b instanceof Optional<?> y) {
            if (x.isPresent() != y.isPresent()) {
                return differ(where, "present in one only");
            }
            return compare(x.orElse(null), la, y.orElse(null), lb, where + ".get()", depth + 1, open);
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) {
                return differ(where, x.size() + " entries against " + y.size());
            }
            List<Object> xs = new ArrayList<>();
            List<Object> ys = new ArrayList<>();
            for (Map.Entry<?, ?> e : x.entrySet()) {
                xs.add(new Pair(e.getKey(), e.getValue()));
            }
            for (Map.Entry<?, ?> e : y.entrySet()) {
                ys.add(new Pair(e.getKey(), e.getValue()));
            }
            if (!(isOrdered(x) && isOrdered(y))) {
                sort(xs, la);
                sort(ys, lb);
            }
            return ordered(xs, la, ys, lb, where, depth, open);
        }
        if (a instanceof Collection<?> x && b instanceof Collection<?> y) {
            if (x.size() != y.size()) {
                return differ(where, x.size() + " elements against " + y.size());
            }
            List<Object> xs = new ArrayList<>(x);
            List<Object> ys = new ArrayList<>(y);
            if (!(isOrdered(x) && isOrdered(y))) {
                sort(xs, la);
                sort(ys, lb);
            }
            return ordered(xs, la, ys, lb, where, depth, open);
        }
        if ((a instanceof BaseStream<?, ?> || a instanceof Iterator<?>)
                && (b instanceof BaseStream<?, ?> || b instanceof Iterator<?>)) {
            List<Object> xs = drain(a);
            List<Object> ys = drain(b);
            return ordered(xs, la, ys, lb, where, depth, open);
        }
        if (a instanceof Pair x && b instanceof Pair y) {
            Result key = compare(x.key(), la, y.key(), lb, where + "{key}", depth + 1, open);
            if (!key.same()) {
                return key;
            }
            return compare(x.value(), la, y.value(), lb, where + "{value}", depth + 1, open);
        }
        boolean projectA = a.getClass().getClassLoader() == la;
        boolean projectB = b.getClass().getClassLoader() == lb;
        if (projectA && projectB) {
            return fields(a, la, b, lb, where, depth, open);
        }
        if (shared(a.getClass()) && shared(b.getClass())) {
            if (definesEquals(a.getClass()) || definesEquals(b.getClass())) {
                return a.equals(b) && b.equals(a) ? Result.SAME
                        : differ(where, "not equal (" + a.getClass().getSimpleName() + ")");
            }
            return opaque(where, a.getClass().getName() + " keeps identity equality");
        }
        if (projectA != projectB) {
            return differ(where, a.getClass().getName() + " against " + b.getClass().getName());
        }
        return opaque(where, a.getClass().getName() + " against " + b.getClass().getName());
    }

    private record Pair(Object key, Object value) {
    }

    private static Result ordered(List<Object> xs, ClassLoader la, List<Object> ys, ClassLoader lb, String where,
            int depth, IdentityHashMap<Object, Object> open) {
        if (xs.size() != ys.size()) {
            return differ(where, xs.size() + " elements against " + ys.size());
        }
        Result firstOpaque = null;
        for (int i = 0; i < xs.size(); i++) {
            Result one = compare(xs.get(i), la, ys.get(i), lb, where + "[" + i + "]", depth + 1, open);
            if (one.outcome() == Outcome.DIFFERENT) {
                return one;
            }
            if (one.outcome() == Outcome.NOT_COMPARABLE && firstOpaque == null) {
                firstOpaque = one;
            }
        }
        return firstOpaque != null ? firstOpaque : Result.SAME;
    }

    private static Result fields(Object a, ClassLoader la, Object b, ClassLoader lb, String where, int depth,
            IdentityHashMap<Object, Object> open) {
        if (!a.getClass().getName().equals(b.getClass().getName())) {
            return differ(where, Recipe.simple(a.getClass().getName()) + " against " + Recipe.simple(b.getClass().getName()));
        }
        Map<String, Field> theirs = declared(b.getClass(), lb);
        Result firstOpaque = null;
        for (Map.Entry<String, Field> mine : declared(a.getClass(), la).entrySet()) {
            Field other = theirs.get(mine.getKey());
            if (other == null) {
                continue;
            }
            Object x;
            Object y;
            try {
                mine.getValue().setAccessible(true);
                other.setAccessible(true);
                x = mine.getValue().get(a);
                y = other.get(b);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return opaque(where, "field " + mine.getKey() + " cannot be read");
            }
            Result one = compare(x, la, y, lb, where + "." + mine.getKey(), depth + 1, open);
            if (one.outcome() == Outcome.DIFFERENT) {
                return one;
            }
            if (one.outcome() == Outcome.NOT_COMPARABLE && firstOpaque == null) {
                firstOpaque = one;
            }
        }
        return firstOpaque != null ? firstOpaque : Result.SAME;
    }

    /** The instance fields of a project class and its project superclasses, by name (nearest first). */
    private static Map<String, Field> declared(Class<?> type, ClassLoader project) {
        Map<String, Field> out = new LinkedHashMap<>();
        for (Class<?> t = type; t != null && t.getClassLoader() == project;
                t = t.getSuperclass()) {
            for (Field field : t.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && !field.isSynthetic()) {
                    out.putIfAbsent(field.getName(), field);
                }
            }
        }
        return out;
    }

    private static Result patterns(Pattern x, Pattern y, String where) {
        if (x.pattern().equals(y.pattern()) && x.flags() == y.flags()) {
            return Result.SAME;
        }
        for (String probe : probes) {
            String first = matching(x, probe);
            String second = matching(y, probe);
            if (!first.equals(second)) {
                return differ(where, "the regular expressions match " + Observe.literal(probe) + " differently ("
                        + Observe.cut(first) + " against " + Observe.cut(second) + ")");
            }
        }
        return Result.SAME;
    }

    /** What a regular expression does with a text: whole match, then every find with its groups. */
    private static String matching(Pattern pattern, String probe) {
        StringBuilder out = new StringBuilder();
        try {
            Matcher matcher = pattern.matcher(new Bounded(probe, new long[] {MAX_READS}));
            out.append(matcher.matches() ? "matches" : "no match");
            matcher.reset();
            int finds = 0;
            while (matcher.find() && finds++ < 20) {
                out.append("; found");
                for (int g = 0; g <= matcher.groupCount(); g++) {
                    out.append(' ').append(matcher.group(g) == null ? "-" : Observe.literal(matcher.group(g)));
                }
            }
        } catch (TooSlow e) {
            out.append("; too slow");
        }
        return out.toString();
    }

    /** A text that stops a regular expression after a number of character reads. */
    private record Bounded(String text, long[] reads) implements CharSequence {
        @Override
        public char charAt(int index) {
            if (--reads[0] < 0) {
                throw new TooSlow();
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Bounded(text.substring(start, end), reads);
        }

        @Override
        public String toString() {
            return text;
        }
    }

    private static final class TooSlow extends RuntimeException {
        TooSlow() {
            super(null, null, false, false);
        }
    }

    private static String message(Throwable e) {
        try {
            return e.getMessage();
        } catch (RuntimeException | LinkageError failed) {
            return "(getMessage threw " + failed.getClass().getName() + ")";
        }
    }

    private static List<Object> drain(Object source) {
        Iterator<?> items = source instanceof BaseStream<?, ?> stream ? stream.iterator() : (Iterator<?>) source;
        List<Object> out = new ArrayList<>();
        while (out.size() < MAX_ELEMENTS && items.hasNext()) {
            out.add(items.next());
        }
        return out;
    }

    private static void sort(List<Object> items, ClassLoader loader) {
        items.sort(java.util.Comparator.comparing(item -> item instanceof Pair p
                ? Observe.render(p.key(), loader) + "=" + Observe.render(p.value(), loader)
                : Observe.render(item, loader)));
    }

    private static boolean isOrdered(Object container) {
        return container instanceof List || container instanceof SortedSet || container instanceof LinkedHashSet
                || container instanceof EnumSet
                || container instanceof java.util.Queue && !(container instanceof java.util.PriorityQueue) || container instanceof SortedMap
                || container instanceof LinkedHashMap || container instanceof EnumMap;
    }

    /** A class every version shares: the JDK's own (boot or platform class loader). */
    private static boolean shared(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        return loader == null || loader == ClassLoader.getPlatformClassLoader();
    }

    private static boolean definesEquals(Class<?> type) {
        try {
            return type.getMethod("equals", Object.class).getDeclaringClass() != Object.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
