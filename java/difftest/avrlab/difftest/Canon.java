package avrlab.difftest;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.security.MessageDigest;
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
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.BaseStream;

/**
 * A value's canonical form: what a caller can observe of it, written down in the JVM that made it,
 * so that values of two JVMs — the candidate's, which the comparison must not run in, and the
 * tester's — are compared as text by {@link Compare}. The rules are {@link Compare}'s, one side at
 * a time:
 * <ul>
 * <li>strings and other character sequences by their characters (a call's scratch folder named as
 * {@code $SCRATCH}); paths by class and name;</li>
 * <li>regular expressions by their source and flags, and by what they match on every probe (the
 * task's literals and a fixed set of short texts): whether the whole text matches and what each
 * {@code find()} finds, group by group;</li>
 * <li>arrays, lists, queues, sorted and insertion-ordered sets and maps element by element in order,
 * other sets and maps as multisets (their elements' forms sorted); streams and iterators by what
 * they yield; byte buffers, and byte and character streams held in memory, by what is left to read
 * of them; {@code Optional} by presence and content;
 * map entries by key and value;</li>
 * <li>an exception by its type and message; an enum constant by its class and name; a class by its
 * name;</li>
 * <li>objects of the project (and of its dependencies) field by field;</li>
 * <li>other JDK values whose class defines {@code equals}: boxed numbers, booleans and characters
 * by their exact decimal form, serializable ones by a digest of their serialized form (which holds
 * what their {@code equals} compares), character sets by name; anything else of the JDK keeps
 * identity equality and is <em>not comparable</em>.</li>
 * </ul>
 * The grammar: a tag character, then its parts; a text is {@code <length>:<characters>}, a count
 * {@code <n>;}. {@code N} null, {@code S} text, {@code P} class path, {@code R} source flags count
 * probe-results, {@code E} class message-node, {@code V} class name, {@code C} name, {@code J} class
 * key, {@code O} class (identity), {@code X} why not comparable, {@code Y} a cycle, {@code B} hex,
 * {@code Q} node, {@code q} (empty), {@code K} key value, {@code L}/{@code U}/{@code T} count
 * nodes (ordered, unordered, drained), {@code F} class count (name node)*.
 */
final class Canon {
    private static final int MAX_DEPTH = 8;
    /** Elements taken of a stream or an iterator, at most (an endless one stops there). */
    private static final int MAX_ELEMENTS = 1000;
    /** The longest form; a value whose form grows past it is not comparable. */
    static final int MAX_CHARS = 1 << 20;
    /** Characters a probe's matching may read before it counts as too slow (a backtracking blow-up). */
    private static final long MAX_READS = 200_000;
    /** Short texts every regular expression is probed with, besides the task's literals. */
    private static final List<String> FIXED_PROBES = List.of("", " ", "a", "A", "0", "1", "-1", "\n", "\t", "\0",
            "abc", "ABC", "a b", "A B", "A  B", "1 A", "1. A", "1.2 AB CD", "12.3.4\tX Y", "1 ab", "x1", "a.b",
            "a/b", "../a", "<a href=\"x\">", "'", "\"", "&amp;", "${x}", "a\nb", "A\r\nB", "foo@example.com",
            "http://example.com/a?b=c", "2024-01-31", "-12.50", "1e3", "\u00e9", "AAAAAAAAAAAAAAAAAAAAAAAA!",
            "1 A B", "1 " + words(9), "1 " + words(13), "1 " + words(17), "1 " + words(33), "1 " + words(65));

    /** A text of that many upper-case words: a repetition's bound shows on the first text past it. */
    private static String words(int n) {
        return String.join(" ", java.util.Collections.nCopies(n, "A"));
    }



    private static List<String> probes = FIXED_PROBES;

    /** Which classes are the project's (compared field by field). */
    private final Predicate<Class<?>> project;
    /** The call's scratch folder, named {@code $SCRATCH} in texts (null: the call had none). */
    private final String scratch;
    private StringBuilder out = new StringBuilder();
    private final IdentityHashMap<Object, Boolean> open = new IdentityHashMap<>();

    private Canon(Predicate<Class<?>> project, String scratch) {
        this.project = project;
        this.scratch = scratch;
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

    /** The canonical form of a value made by code the predicate calls the project's. */
    static String of(Object value, Predicate<Class<?>> project, String scratch) {
        Canon canon = new Canon(project, scratch);
        canon.node(value, 0);
        if (canon.out.length() > MAX_CHARS) {
            return "X" + text("too large to compare");
        }
        return canon.out.toString();
    }

    static String text(String text) {
        return text.length() + ":" + text;
    }

    private void put(char tag, String... texts) {
        out.append(tag);
        for (String text : texts) {
            out.append(text(text));
        }
    }

    private void count(int n) {
        out.append(n).append(';');
    }

    private String unscratched(String text) {
        return scratch == null || text == null ? text : text.replace(scratch, "$SCRATCH");
    }

    private void node(Object value, int depth) {
        if (out.length() > MAX_CHARS) {
            put('X', "too large to compare");
            return;
        }
        if (value == null) {
            out.append('N');
            return;
        }
        if (value instanceof CharSequence text) {
            put('S', unscratched(text.toString()));
            return;
        }
        if (value instanceof java.nio.file.Path || value instanceof java.io.File) {
            // Paths are equal when their names are (Path.equals compares no files either).
            put('P', value.getClass().getName(), unscratched(value.toString()));
            return;
        }
        if (value instanceof Pattern pattern) {
            put('R', pattern.pattern(), Integer.toString(pattern.flags()));
            count(probes.size());
            for (String probe : probes) {
                out.append(text(Observe.literal(probe) + ": " + matching(pattern, probe)));
            }
            return;
        }
        if (value instanceof Throwable thrown) {
            put('E', thrown.getClass().getName());
            String message = message(thrown);
            if (message == null) {
                out.append('N');
            } else {
                put('S', unscratched(message));
            }
            return;
        }
        if (value instanceof Enum<?> constant) {
            put('V', constant.getDeclaringClass().getName(), constant.name());
            return;
        }
        if (value instanceof Class<?> type) {
            put('C', type.getName());
            return;
        }
        if (depth >= MAX_DEPTH) {
            put('X', "nested too deep to compare");
            return;
        }
        if (open.containsKey(value)) {
            // A cycle: the value is being written further up.
            out.append('Y');
            return;
        }
        open.put(value, Boolean.TRUE);
        int mark = out.length();
        try {
            structure(value, depth);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            out.setLength(mark);
            put('X', "reading it threw " + e.getClass().getName());
        } finally {
            open.remove(value);
        }
    }

    private void structure(Object value, int depth) {
        Class<?> type = value.getClass();
        if (type.isArray()) {
            List<Object> items = new ArrayList<>();
            for (int i = 0; i < Array.getLength(value); i++) {
                items.add(Array.get(value, i));
            }
            sequence('L', items, depth);
            return;
        }
        if (value instanceof ByteBuffer buffer) {
            ByteBuffer copy = buffer.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            put('B', Observe.hex(bytes));
            return;
        }
        if (value instanceof java.io.ByteArrayInputStream in) {
            // An in-memory stream (as generated): what its caller can still read, read and put back.
            in.mark(0);
            byte[] rest = in.readAllBytes();
            in.reset();
            put('B', Observe.hex(rest));
            return;
        }
        if (value instanceof java.io.StringReader || value instanceof java.io.CharArrayReader) {
            java.io.Reader reader = (java.io.Reader) value;
            try {
                reader.mark(Integer.MAX_VALUE);
                StringBuilder rest = new StringBuilder();
                char[] chunk = new char[4096];
                for (int n = reader.read(chunk); n >= 0 && rest.length() <= MAX_CHARS; n = reader.read(chunk)) {
                    rest.append(chunk, 0, n);
                }
                reader.reset();
                put('S', unscratched(rest.toString()));
            } catch (java.io.IOException closed) {
                put('V', type.getName(), "closed");
            }
            return;
        }
        if (value instanceof Optional<?> optional) {
            if (optional.isPresent()) {
                out.append('Q');
                node(optional.get(), depth + 1);
            } else {
                out.append('q');
            }
            return;
        }
        if (value instanceof Map.Entry<?, ?> entry && !project.test(type)) {
            out.append('K');
            node(entry.getKey(), depth + 1);
            node(entry.getValue(), depth + 1);
            return;
        }
        if (value instanceof Map<?, ?> map) {
            List<Object> pairs = new ArrayList<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                pairs.add(new AbstractEntry(e.getKey(), e.getValue()));
            }
            sequence(isOrdered(map) ? 'L' : 'U', pairs, depth);
            return;
        }
        if (value instanceof Collection<?> collection) {
            sequence(isOrdered(collection) ? 'L' : 'U', new ArrayList<>(collection), depth);
            return;
        }
        if (value instanceof BaseStream<?, ?> || value instanceof Iterator<?>) {
            Iterator<?> items = value instanceof BaseStream<?, ?> stream ? stream.iterator() : (Iterator<?>) value;
            List<Object> drained = new ArrayList<>();
            while (drained.size() < MAX_ELEMENTS && items.hasNext()) {
                drained.add(items.next());
            }
            sequence('T', drained, depth);
            return;
        }
        if (project.test(type)) {
            fields(value, depth);
            return;
        }
        if (shared(type)) {
            if (definesEquals(type)) {
                String key = key(value);
                if (key == null) {
                    put('X', type.getName() + " has no form to compare here");
                } else {
                    put('J', type.getName(), key);
                }
            } else {
                put('O', type.getName());
            }
            return;
        }
        // Neither the JDK's nor the project's (the tester's own): nothing to say of it.
        put('O', type.getName());
    }

    /** A map's entry, written as a pair (the map's own entries may be views). */
    private record AbstractEntry(Object key, Object value) implements Map.Entry<Object, Object> {
        @Override
        public Object getKey() {
            return key;
        }

        @Override
        public Object getValue() {
            return value;
        }

        @Override
        public Object setValue(Object value) {
            throw new UnsupportedOperationException();
        }
    }

    private void sequence(char tag, List<Object> items, int depth) {
        List<String> forms = new ArrayList<>();
        for (Object item : items) {
            StringBuilder outer = out;
            out = new StringBuilder();
            if (item instanceof AbstractEntry entry) {
                out.append('K');
                node(entry.key(), depth + 1);
                node(entry.value(), depth + 1);
            } else {
                node(item, depth + 1);
            }
            forms.add(out.toString());
            out = outer;
            if (forms.size() > MAX_ELEMENTS * 10 || out.length() > MAX_CHARS) {
                break;
            }
        }
        if (tag == 'U') {
            forms.sort(null);
        }
        out.append(tag);
        count(forms.size());
        for (String form : forms) {
            out.append(form);
        }
    }

    private void fields(Object value, int depth) {
        Map<String, Field> fields = new LinkedHashMap<>();
        for (Class<?> t = value.getClass(); t != null && project.test(t); t = t.getSuperclass()) {
            for (Field field : t.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && !field.isSynthetic()) {
                    fields.putIfAbsent(field.getName(), field);
                }
            }
        }
        List<String> names = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        for (Map.Entry<String, Field> field : fields.entrySet()) {
            try {
                field.getValue().setAccessible(true);
                values.add(field.getValue().get(value));
                names.add(field.getKey());
            } catch (ReflectiveOperationException | RuntimeException e) {
                put('X', "field " + field.getKey() + " cannot be read");
                return;
            }
        }
        put('F', value.getClass().getName());
        count(names.size());
        for (int i = 0; i < names.size(); i++) {
            out.append(text(names.get(i)));
            node(values.get(i), depth + 1);
        }
    }

    /** What a JDK value's {@code equals} compares, as text; null where it cannot be written down. */
    private static String key(Object value) {
        if (value instanceof Number || value instanceof Boolean || value instanceof Character) {
            if (shared(value.getClass()) && value.getClass().getName().startsWith("java.")) {
                // Exact decimal forms (Double.toString round-trips; BigDecimal keeps its scale).
                if (value instanceof Byte || value instanceof Short || value instanceof Integer
                        || value instanceof Long || value instanceof Float || value instanceof Double
                        || value instanceof java.math.BigInteger || value instanceof java.math.BigDecimal
                        || value instanceof Boolean || value instanceof Character) {
                    return String.valueOf(value);
                }
            }
        }
        if (value instanceof Charset charset) {
            return charset.name();
        }
        if (value instanceof Serializable) {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                try (ObjectOutputStream stream = new ObjectOutputStream(bytes)) {
                    stream.writeObject(value);
                }
                return "sha256:" + Observe.hex(MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray()));
            } catch (Exception e) {
                return null;
            }
        }
        return null;
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

    private static boolean isOrdered(Object container) {
        return container instanceof List || container instanceof SortedSet || container instanceof LinkedHashSet
                || container instanceof EnumSet
                || container instanceof java.util.Queue && !(container instanceof java.util.PriorityQueue)
                || container instanceof SortedMap || container instanceof LinkedHashMap
                || container instanceof EnumMap;
    }

    /** A class every version shares: the JDK's own (boot or platform class loader). */
    static boolean shared(Class<?> type) {
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
