package avrlab.difftest;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomGenerator;
import net.jqwik.api.Tuple;

/**
 * Generates inputs for a method from its parameter types. Values come from jqwik's generators
 * (with their edge cases), seeded with the literals of the task's tests and amplified: literals
 * with characters inserted, replaced or dropped, joined around fragments that commonly separate
 * safe input from hostile input, and byte strings built of length-prefixed blocks. Every draw uses
 * one {@link Random} seeded per input, so an input is reproduced from its seed alone.
 */
final class Inputs {
    /** jqwik's generation size: how far its generators reach (string lengths, number ranges). */
    private static final int GEN_SIZE = 1000;
    /** How deep constructed objects nest (a record holding a set of enums is depth 2). */
    private static final int MAX_DEPTH = 3;
    /**
     * Fragments that separate data from structure in common formats: line breaks (headers, logs),
     * path segments (file names), quotes and angle brackets (SQL, HTML), lookups (templates), and
     * the scratch folder's sibling of the resolver root, which shares the root's name as a prefix.
     */
    static final List<String> FRAGMENTS = List.of("\r", "\n", "\r\n", "\0", "\t", " ", "../", "..", "/", "\\",
            "'", "\"", "<", ">", "&", "${", "}", "%", "-", "=", ";", ":", "\u00e9", "\u2028", "A", "0",
            "../" + Scratch.SIBLING + "/");

    /** A thing to call: a method or constructor of a project class, identified across class loaders. */
    record Target(String className, String name, List<String> params, boolean isStatic, boolean isConstructor)
            implements java.io.Serializable {
        String signature() {
            List<String> simple = params.stream().map(Recipe::simple).toList();
            return Recipe.simple(className) + "." + (isConstructor ? "<init>" : name) + "(" + String.join(", ", simple) + ")";
        }
    }

    /** A call made on the receiver before the target, to reach more of its states. */
    record Call(String name, List<String> params, List<Recipe> args) implements java.io.Serializable {
    }

    /** One generated input: the receiver (for an instance method), its set-up calls and the arguments. */
    record Input(Target target, Recipe receiver, List<Call> setup, List<Recipe> args) implements java.io.Serializable {
        boolean usesScratch() {
            if (receiver != null && receiver.usesScratch()) {
                return true;
            }
            for (Call call : setup) {
                for (Recipe arg : call.args()) {
                    if (arg.usesScratch()) {
                        return true;
                    }
                }
            }
            for (Recipe arg : args) {
                if (arg.usesScratch()) {
                    return true;
                }
            }
            return false;
        }

        String show() {
            StringBuilder out = new StringBuilder();
            if (target.isConstructor()) {
                out.append("new ").append(Recipe.simple(target.className()));
            } else if (receiver == null) {
                out.append(Recipe.simple(target.className())).append('.').append(target.name());
            } else {
                out.append(receiver.show());
                for (Call call : setup) {
                    out.append('.').append(call.name()).append('(');
                    appendArgs(out, call.args());
                    out.append(')');
                }
                out.append('.').append(target.name());
            }
            out.append('(');
            appendArgs(out, args);
            return out.append(')').toString();
        }

        private static void appendArgs(StringBuilder out, List<Recipe> args) {
            for (int i = 0; i < args.size(); i++) {
                out.append(i == 0 ? "" : ", ").append(args.get(i).show());
            }
        }
    }

    /** A parameter type the generator cannot make values of. */
    static final class Ungeneratable extends Exception {
        Ungeneratable(String message) {
            super(message);
        }
    }

    private final RandomGenerator<String> strings;
    private final RandomGenerator<Integer> ints;
    private final RandomGenerator<Long> longs;
    private final RandomGenerator<Double> doubles;
    private final RandomGenerator<byte[]> randomBytes;
    private final RandomGenerator<Integer> blockLengths;
    private final List<String> literals;
    private final List<String> classPool;
    private final ClassLoader project;
    private Random random = new Random(0);
    /** Whether the current input draws from the boundary values only (see {@link #boundaries}). */
    private boolean edge;
    private List<Long> edgeNumbers = List.of();
    private List<String> edgeStrings = List.of();
    private List<String> edgeShortStrings = List.of();
    private List<byte[]> edgeBytes = List.of();
    private List<Integer> edgeLengths = List.of();
    private List<Recipe> edgeScalars = List.of();

    Inputs(List<String> literals, List<Long> numbers, List<String> projectClasses, ClassLoader project) {
        this.literals = literals.isEmpty() ? List.of("a", "test", "value") : literals;
        this.project = project;
        Arbitrary<String> lits = Arbitraries.of(this.literals);
        Arbitrary<String> fragments = Arbitraries.of(FRAGMENTS);
        Arbitrary<String> mutated = Combinators
                .combine(lits, fragments, Arbitraries.integers().between(0, 1 << 16), Arbitraries.integers().between(0, 5))
                .as(Inputs::mutate);
        Arbitrary<String> joined = Combinators.combine(lits, fragments, lits).as((a, f, b) -> a + f + b);
        Arbitrary<String> ascii = Arbitraries.strings().withCharRange(' ', '~').withChars("\r\n\t\0").ofMaxLength(12);
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(6);
        this.strings = Arbitraries.frequencyOf(Tuple.of(5, lits), Tuple.of(6, mutated), Tuple.of(2, joined),
                Tuple.of(3, ascii), Tuple.of(1, any)).generatorWithEmbeddedEdgeCases(GEN_SIZE);
        List<Integer> literalInts = numbers.stream().filter(n -> n == (int) (long) n).map(n -> (int) (long) n).toList();
        Arbitrary<Integer> small = Arbitraries.integers().between(-4, 300);
        Arbitrary<Integer> full = Arbitraries.integers();
        this.ints = (literalInts.isEmpty()
                ? Arbitraries.frequencyOf(Tuple.of(4, small), Tuple.of(2, full))
                : Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of(literalInts)), Tuple.of(4, small), Tuple.of(2, full)))
                .generatorWithEmbeddedEdgeCases(GEN_SIZE);
        this.longs = Arbitraries.frequencyOf(Tuple.of(3, small.map(Integer::longValue)),
                Tuple.of(1, Arbitraries.longs())).generatorWithEmbeddedEdgeCases(GEN_SIZE);
        this.doubles = Arbitraries.doubles().generatorWithEmbeddedEdgeCases(GEN_SIZE);
        this.randomBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(48).generatorWithEmbeddedEdgeCases(GEN_SIZE);
        this.blockLengths = Arbitraries.integers().between(0, 200).generatorWithEmbeddedEdgeCases(GEN_SIZE);
        List<String> pool = new ArrayList<>(List.of("java.lang.String", "java.lang.Integer", "java.lang.Object",
                "[I", "[Ljava.lang.Object;", "java.util.HashMap", "java.util.ArrayList", "java.io.File"));
        pool.addAll(projectClasses);
        this.classPool = pool;
    }

    void reseed(long seed) {
        random = new Random(seed);
        swept.clear();
    }

    /**
     * Whether the next input is drawn from the boundary values (before the random ones), and which
     * round of them it is: the values an input takes of each kind (number, byte string, length,
     * scalar; a text's first) are that kind's boundary values at this round's index and fixed
     * strides from it ({@link #edgePick}), so that the rounds take every parameter through every
     * boundary value in turn rather than leaving some to chance.
     */
    void edgeFirst(boolean on, int round) {
        edge = on;
        edgeRound = round;
    }

    private int edgeRound;
    /** How many values of each kind of boundary value the current input has taken. */
    private final java.util.IdentityHashMap<List<?>, Integer> swept = new java.util.IdentityHashMap<>();

    /**
     * A boundary value of a kind: the input's n-th value of that kind is the kind's value at this
     * round's index plus n strides, so that over the rounds every position (the first argument,
     * the second, ...) goes through every value.
     */
    private <T> T edgePick(List<T> pool) {
        int n = swept.merge(pool, 1, Integer::sum) - 1;
        return pool.get((int) Math.floorMod(edgeRound + n * EDGE_STRIDE, (long) pool.size()));
    }

    /**
     * The stride between an input's successive values of one kind: a prime larger than any pool,
     * so that the second, third, ... value of a round are spread over the pool rather than next to
     * the first.
     */
    private static final long EDGE_STRIDE = 7919;

    /** Lengths around which collections, strings and byte strings are made, at most. */
    private static final int MAX_EDGE_LENGTH = 4096;

    /**
     * The boundary values of each parameter type, drawn from first: the limits of each integer type,
     * 0 and ±1; every number of the task's tests and recordings and every constant of the changed
     * classes, with its neighbours; the empty string, one-character strings, the literals, the
     * literals with their first or last character dropped or the last one doubled, and strings and
     * byte strings whose lengths lie around those numbers, fixed-layout records ({@link #records})
     * of the changed classes' constants. Collections and arrays are made empty or of one element,
     * and null comes more often.
     */
    void boundaries(List<Long> numbers, List<Long> classNumbers, List<String> constants) {
        java.util.LinkedHashSet<Long> ns = new java.util.LinkedHashSet<>(List.of(0L, 1L, -1L, 2L,
                (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE, Integer.MIN_VALUE + 1L, Integer.MAX_VALUE - 1L,
                Long.MIN_VALUE, Long.MAX_VALUE, (long) Short.MIN_VALUE, (long) Short.MAX_VALUE, (long) Byte.MIN_VALUE,
                (long) Byte.MAX_VALUE));
        java.util.LinkedHashSet<Integer> lengths = new java.util.LinkedHashSet<>(List.of(0, 1, 2));
        for (long n : numbers) {
            for (long near = n - 1; near <= n + 1; near++) {
                ns.add(near);
                if (near >= 0 && near <= MAX_EDGE_LENGTH) {
                    lengths.add((int) near);
                }
            }
            // A small constant (a header's size, an offset) away from the limit: sums with it overflow.
            if (n > 0 && n <= 64) {
                ns.add(Integer.MAX_VALUE - n);
                ns.add(Integer.MAX_VALUE - n + 1);
            }
        }
        java.util.LinkedHashSet<String> texts = new java.util.LinkedHashSet<>(List.of("", "a", "A", " ", "0", "\0",
                "\n"));
        // The fragments that separate data from structure, each alone (a one-character input).
        texts.addAll(FRAGMENTS);
        // Byte strings of three kinds after the first three, taken in turn (see interleave): of the
        // boundary lengths, fixed-layout records, and 32-bit numbers.
        List<byte[]> sized = new ArrayList<>();
        List<byte[]> prefixed = new ArrayList<>();
        // Texts whose lengths lie around the numbers come before the literals' variants, so the
        // boundary rounds, which go through the texts in order, reach them.
        for (int length : lengths) {
            texts.add("a".repeat(length));
            if (length <= 64) {
                // As many words (a title, a command line) as the number says.
                texts.add(String.join(" ", java.util.Collections.nCopies(length, "w")));
            }
            sized.add(new byte[length]);
            byte[] filled = new byte[length];
            java.util.Arrays.fill(filled, (byte) 'a');
            sized.add(filled);
        }
        List<String> seeds = new ArrayList<>(constants);
        seeds.addAll(literals);
        for (String seed : seeds) {
            if (texts.size() > 500) {
                break;
            }
            texts.add(seed);
            if (!seed.isEmpty()) {
                texts.add(seed.substring(1));
                texts.add(seed.substring(0, seed.length() - 1));
                texts.add(seed + seed.charAt(seed.length() - 1));
                texts.add(seed.substring(0, 1));
            }
        }
        // A 32-bit big-endian number (a length prefix, a count) of each boundary value, alone and
        // followed by a few bytes.
        for (long n : ns) {
            if (n == (int) n) {
                prefixed.add(ByteBuffer.allocate(4).putInt((int) n).array());
                prefixed.add(ByteBuffer.allocate(6).putInt((int) n).array());
            }
        }
        List<byte[]> bytes = new ArrayList<>(List.of(new byte[0], new byte[] {0}, new byte[] {-1}));
        bytes.addAll(interleave(List.of(sized, records(classNumbers), prefixed)));
        // A parameter of type Object (or Number, Comparable): the boundary values of each JDK
        // scalar type, each as likely as the others.
        List<Recipe> scalars = new ArrayList<>(List.of(Recipe.nothing(), Recipe.value(""), Recipe.value("a"),
                Recipe.value(true), Recipe.value(false), Recipe.value('\0'), Recipe.value(Double.NaN),
                Recipe.value(-0.0), Recipe.value(Double.MAX_VALUE), Recipe.value(-Double.MAX_VALUE)));
        for (long n : List.of(0L, 1L, -1L, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE)) {
            scalars.add(Recipe.value((int) n));
        }
        for (long n : List.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE)) {
            scalars.add(Recipe.value(n));
        }
        for (short n : new short[] {0, 1, -1, Short.MIN_VALUE, Short.MAX_VALUE}) {
            scalars.add(Recipe.value(n));
        }
        for (byte n : new byte[] {0, -1, Byte.MIN_VALUE, Byte.MAX_VALUE}) {
            scalars.add(Recipe.value(n));
        }
        for (BigDecimal n : EDGE_DECIMALS) {
            scalars.add(Recipe.value(n));
        }
        // The changed classes' constants and the tests' literals, as texts (a method's name, a key).
        for (String text : seeds) {
            if (scalars.size() >= 200) {
                break;
            }
            scalars.add(Recipe.value(text));
        }
        for (long n : numbers) {
            if (n == (int) n) {
                scalars.add(Recipe.value((int) n));
            }
        }
        edgeScalars = scalars;
        edgeNumbers = List.copyOf(ns);
        edgeStrings = List.copyOf(texts);
        edgeShortStrings = texts.stream().filter(t -> t.length() <= 1).toList();
        edgeBytes = bytes;
        edgeLengths = List.copyOf(lengths);
    }

    /**
     * The lists' elements taken in turn, one of each list at a time (a list that runs out is
     * left out), so that the first boundary rounds reach the first values of every kind.
     */
    static <T> List<T> interleave(List<List<T>> lists) {
        List<T> out = new ArrayList<>();
        for (int i = 0; out.size() < lists.stream().mapToInt(List::size).sum(); i++) {
            for (List<T> list : lists) {
                if (i < list.size()) {
                    out.add(list.get(i));
                }
            }
        }
        return out;
    }

    /** Offsets and field values of fixed-layout records are taken from constants up to this. */
    private static final long MAX_RECORD_CONSTANT = 64;
    /** Fixed-layout records made, at most. */
    private static final int MAX_RECORDS = 160;

    /**
     * Fixed-layout records (a header of fields at fixed offsets, as binary formats have): zeroed
     * blocks with one field set to a small constant of the changed classes or a neighbour of one
     * (a record length of the header's size less one), at an offset those constants name: for each
     * constant n, a 16-bit big-endian number at n, at n - 1 (in a zeroed block, also an 8-bit
     * field at n) and at n + 2 (also a 32-bit field at n). A block is twice the field's end long,
     * room for a record after it.
     */
    static List<byte[]> records(List<Long> classNumbers) {
        java.util.TreeSet<Long> small = new java.util.TreeSet<>();
        for (long n : classNumbers) {
            if (n >= 0 && n <= MAX_RECORD_CONSTANT) {
                small.add(n);
            }
        }
        java.util.TreeSet<Long> values = new java.util.TreeSet<>();
        java.util.TreeSet<Long> offsets = new java.util.TreeSet<>();
        for (long n : small) {
            for (long near = n - 1; near <= n + 1; near++) {
                if (near >= 0) {
                    values.add(near);
                }
            }
            for (long at : new long[] {n - 1, n, n + 2}) {
                if (at >= 0 && at <= MAX_RECORD_CONSTANT) {
                    offsets.add(at);
                }
            }
        }
        List<byte[]> records = new ArrayList<>();
        for (long value : values) {
            for (long offset : offsets) {
                if (records.size() >= MAX_RECORDS) {
                    return records;
                }
                int end = (int) offset + 2;
                byte[] block = new byte[Math.max(2 * end, 16)];
                block[(int) offset] = (byte) (value >>> 8);
                block[(int) offset + 1] = (byte) value;
                records.add(block);
            }
        }
        return records;
    }

    /**
     * The literals and constants of a compiled class, read from its class file: the integers and
     * strings its methods load (constant pool entries, small pushed integers) and its constant
     * fields' values. A class file that cannot be read gives none.
     */
    static void constantsOf(Path classFile, List<Long> numbers, List<String> strings) {
        byte[] bytes;
        try {
            bytes = java.nio.file.Files.readAllBytes(classFile);
        } catch (IOException e) {
            return;
        }
        java.util.function.Consumer<Object> take = value -> {
            if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
                long n = ((Number) value).longValue();
                if (!numbers.contains(n) && numbers.size() < 200) {
                    numbers.add(n);
                }
            } else if (value instanceof Character c) {
                take(numbers, (long) c);
            } else if (value instanceof String text && text.length() <= 400 && !strings.contains(text)
                    && strings.size() < 200) {
                strings.add(text);
            }
        };
        new org.objectweb.asm.ClassReader(bytes).accept(new org.objectweb.asm.ClassVisitor(org.objectweb.asm.Opcodes.ASM9) {
            @Override
            public org.objectweb.asm.FieldVisitor visitField(int access, String name, String descriptor, String signature,
                    Object value) {
                if (value != null) {
                    take.accept(value);
                }
                return null;
            }

            @Override
            public org.objectweb.asm.MethodVisitor visitMethod(int access, String name, String descriptor,
                    String signature, String[] exceptions) {
                return new org.objectweb.asm.MethodVisitor(org.objectweb.asm.Opcodes.ASM9) {
                    @Override
                    public void visitLdcInsn(Object value) {
                        take.accept(value);
                    }

                    @Override
                    public void visitIntInsn(int opcode, int operand) {
                        if (opcode != org.objectweb.asm.Opcodes.NEWARRAY) {
                            take.accept(operand);
                        }
                    }

                    @Override
                    public void visitInsn(int opcode) {
                        if (opcode >= org.objectweb.asm.Opcodes.ICONST_M1 && opcode <= org.objectweb.asm.Opcodes.ICONST_5) {
                            take.accept(opcode - org.objectweb.asm.Opcodes.ICONST_0);
                        }
                    }
                };
            }
        }, org.objectweb.asm.ClassReader.SKIP_DEBUG);
    }

    private static void take(List<Long> numbers, long n) {
        if (!numbers.contains(n) && numbers.size() < 200) {
            numbers.add(n);
        }
    }

    private int anInt() {
        if (edge) {
            return (int) (long) edgePick(edgeNumbers);
        }
        return draw(ints);
    }

    private long aLong() {
        if (edge) {
            return edgePick(edgeNumbers);
        }
        return draw(longs);
    }

    private String aString() {
        if (edge) {
            // Half of them empty or of one character, which a long list of literals would crowd out.
            if (!swept.containsKey(edgeStrings)) {
                return edgePick(edgeStrings);
            }
            List<String> from = random.nextBoolean() ? edgeShortStrings : edgeStrings;
            return from.get(random.nextInt(from.size()));
        }
        return draw(strings);
    }

    private static final double[] EDGE_DOUBLES = {0.0, -0.0, 1.0, -1.0, 0.5, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE};

    private double aDouble() {
        if (edge) {
            return EDGE_DOUBLES[random.nextInt(EDGE_DOUBLES.length)];
        }
        return draw(doubles);
    }

    private int aLength() {
        if (edge) {
            return edgePick(edgeLengths);
        }
        return draw(blockLengths);
    }

    private <T> T draw(RandomGenerator<T> generator) {
        return generator.next(random).value();
    }

    private static String mutate(String literal, String fragment, int position, int operation) {
        int length = literal.length();
        switch (operation) {
            case 0:
                return literal.substring(0, position % (length + 1)) + fragment + literal.substring(position % (length + 1));
            case 1:
                if (length == 0) {
                    return fragment;
                }
                return literal.substring(0, position % length) + fragment + literal.substring(position % length + 1);
            case 2:
                return fragment + literal;
            case 3:
                return literal + fragment;
            case 4:
                if (length == 0) {
                    return literal;
                }
                return literal.substring(0, position % length) + literal.substring(position % length + 1);
            default:
                return position % 2 == 0 ? literal.toUpperCase(Locale.ROOT) : literal.toLowerCase(Locale.ROOT);
        }
    }

    /** An input for `target`, drawn from the current seed. */
    Input input(Target target, Class<?> type) throws Ungeneratable {
        if (target.isConstructor()) {
            Constructor<?> constructor = Invocation.constructor(type, target.params());
            return new Input(target, null, List.of(), arguments(constructor.getGenericParameterTypes(), constructor.isVarArgs()));
        }
        Method method = Invocation.method(type, target.name(), target.params());
        Recipe receiver = null;
        List<Call> setup = new ArrayList<>();
        if (!target.isStatic()) {
            receiver = construct(type, 0);
            List<Method> mutators = mutators(type, target.name());
            int calls = mutators.isEmpty() ? 0 : random.nextInt(3);
            for (int i = 0; i < calls; i++) {
                Method mutator = mutators.get(random.nextInt(mutators.size()));
                try {
                    setup.add(new Call(mutator.getName(), names(mutator.getParameterTypes()),
                            arguments(mutator.getGenericParameterTypes(), mutator.isVarArgs())));
                } catch (Ungeneratable skipped) {
                    // A set-up call whose arguments cannot be made is left out.
                }
            }
        }
        return new Input(target, receiver, setup, arguments(method.getGenericParameterTypes(), method.isVarArgs()));
    }

    /**
     * The public instance methods of a class, other than the target, that return nothing or the
     * receiver itself: the setters and builders that put a receiver into other states.
     */
    private static List<Method> mutators(Class<?> type, String target) {
        List<Method> out = new ArrayList<>();
        for (Method method : type.getDeclaredMethods()) {
            int modifiers = method.getModifiers();
            if (!Modifier.isPublic(modifiers) || Modifier.isStatic(modifiers) || method.isSynthetic()
                    || method.getName().equals(target)) {
                continue;
            }
            if (method.getReturnType() == void.class || method.getReturnType() == type) {
                out.add(method);
            }
        }
        out.sort(Comparator.comparing(Method::toGenericString));
        return out;
    }

    static List<String> names(Class<?>[] types) {
        return Arrays.stream(types).map(Class::getName).toList();
    }

    private List<Recipe> arguments(Type[] types, boolean varArgs) throws Ungeneratable {
        List<Recipe> out = new ArrayList<>();
        for (Type type : types) {
            Class<?> raw = raw(type);
            // An abstract class (an EL context, a servlet request) has no generator and no
            // constructor to call: it is passed as null, so that the method is still called on
            // its other arguments, which vary.
            boolean abstractClass = !raw.isInterface() && !raw.isArray() && !raw.isPrimitive()
                    && Modifier.isAbstract(raw.getModifiers());
            try {
                out.add(value(type, 0, true));
            } catch (Ungeneratable e) {
                if (!abstractClass) {
                    throw e;
                }
                out.add(Recipe.nothing());
            }
        }
        return out;
    }

    private Recipe value(Type type, int depth, boolean nullable) throws Ungeneratable {
        Class<?> raw = raw(type);
        if (nullable && !raw.isPrimitive() && random.nextInt(edge ? 8 : 40) == 0) {
            return Recipe.nothing();
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return Recipe.value(random.nextBoolean());
        }
        if (raw == int.class || raw == Integer.class) {
            return Recipe.value(anInt());
        }
        if (raw == long.class || raw == Long.class) {
            return Recipe.value(aLong());
        }
        if (raw == short.class || raw == Short.class) {
            return Recipe.value((short) (int) anInt());
        }
        if (raw == byte.class || raw == Byte.class) {
            return Recipe.value((byte) (int) anInt());
        }
        if (raw == char.class || raw == Character.class) {
            String text = aString();
            return Recipe.value(text.isEmpty() ? '\0' : text.charAt(0));
        }
        if (raw == double.class || raw == Double.class) {
            return Recipe.value(aDouble());
        }
        if (raw == float.class || raw == Float.class) {
            return Recipe.value((float) (double) aDouble());
        }
        if (raw == String.class || raw == CharSequence.class) {
            return Recipe.value(aString());
        }
        if (raw == Object.class || raw == Comparable.class || raw == java.io.Serializable.class) {
            return scalar();
        }
        if (raw == Number.class) {
            return number();
        }
        if (raw == BigDecimal.class) {
            return decimal();
        }
        if (raw == BigInteger.class) {
            return Recipe.value(BigInteger.valueOf(aLong()));
        }
        if (raw == byte[].class) {
            return Recipe.of(Recipe.Kind.BYTES, bytes(), null);
        }
        if (raw == ByteBuffer.class) {
            throw new Ungeneratable("ByteBuffer parameters are not generated");
        }
        if (raw == InputStream.class) {
            // Among the boundary values three streams in four are archives, so that every round's
            // entry name (edgeEntryName) is tried as an archive's first entry within a few rounds.
            boolean archive = edge ? edgePick(STREAM_SHAPES) : random.nextInt(3) == 0;
            return Recipe.of(Recipe.Kind.STREAM, archive ? zip() : bytes(), null);
        }
        if (raw == Reader.class) {
            return Recipe.of(Recipe.Kind.READER, aString(), null);
        }
        if (raw == Path.class || raw == File.class) {
            String where = Scratch.PLACES.get(random.nextInt(Scratch.PLACES.size()));
            return Recipe.of(raw == Path.class ? Recipe.Kind.PATH : Recipe.Kind.FILE, where, null);
        }
        if (raw == Charset.class) {
            List<Charset> charsets = List.of(StandardCharsets.UTF_8, StandardCharsets.US_ASCII, StandardCharsets.ISO_8859_1,
                    StandardCharsets.UTF_16BE);
            return Recipe.of(Recipe.Kind.CHARSET, charsets.get(random.nextInt(charsets.size())).name(), null);
        }
        if (raw == Class.class) {
            return Recipe.of(Recipe.Kind.CLASS, null, classPool.get(random.nextInt(classPool.size())));
        }
        if (raw.isEnum()) {
            Object[] constants = raw.getEnumConstants();
            if (constants.length == 0) {
                throw new Ungeneratable(raw.getName() + " has no constants");
            }
            return Recipe.of(Recipe.Kind.ENUM, ((Enum<?>) constants[random.nextInt(constants.length)]).name(), raw.getName());
        }
        if (depth >= MAX_DEPTH) {
            throw new Ungeneratable("values of " + raw.getName() + " nest too deep");
        }
        if (raw.isArray()) {
            Type component = type instanceof GenericArrayType generic ? generic.getGenericComponentType() : raw.getComponentType();
            return Recipe.composite(Recipe.Kind.ARRAY, raw.getComponentType().getName(), List.of(),
                    elements(component, depth, 4));
        }
        if (Map.class.isAssignableFrom(raw) && raw.isAssignableFrom(java.util.TreeMap.class)) {
            Type key = argument(type, 0);
            Type value = argument(type, 1);
            List<Recipe> parts = new ArrayList<>();
            int size = random.nextInt(edge ? 2 : 4);
            for (int i = 0; i < size; i++) {
                parts.add(value(key, depth + 1, false));
                parts.add(value(value, depth + 1, true));
            }
            boolean sorted = SortedMap.class.isAssignableFrom(raw);
            return Recipe.composite(sorted ? Recipe.Kind.SORTED_MAP : Recipe.Kind.MAP, null, List.of(), parts);
        }
        if (Iterable.class.isAssignableFrom(raw) && (raw.isInterface() || raw == ArrayList.class)) {
            Type element = argument(type, 0);
            List<Recipe> parts = elements(element, depth, 5);
            if (SortedSet.class.isAssignableFrom(raw)) {
                return Recipe.composite(Recipe.Kind.SORTED_SET, null, List.of(), parts);
            }
            if (java.util.Set.class.isAssignableFrom(raw)) {
                return Recipe.composite(Recipe.Kind.SET, null, List.of(), parts);
            }
            if (raw.isAssignableFrom(ArrayList.class)) {
                return Recipe.composite(Recipe.Kind.LIST, null, List.of(), parts);
            }
            throw new Ungeneratable("no generator for " + raw.getName());
        }
        if (raw.isInterface()) {
            return proxy(raw, depth);
        }
        if (raw.getClassLoader() == project && !Modifier.isAbstract(raw.getModifiers())) {
            return construct(raw, depth);
        }
        throw new Ungeneratable("no generator for " + raw.getName());
    }

    private List<Recipe> elements(Type element, int depth, int most) throws Ungeneratable {
        List<Recipe> parts = new ArrayList<>();
        int size = random.nextInt(edge ? 2 : most);
        for (int i = 0; i < size; i++) {
            parts.add(value(element, depth + 1, true));
        }
        // The element type must be makeable even when no element was drawn.
        if (size == 0) {
            value(element, depth + 1, false);
        }
        return parts;
    }

    /** A project object, made by one of its constructors (non-private ones first). */
    Recipe construct(Class<?> type, int depth) throws Ungeneratable {
        List<Constructor<?>> constructors = new ArrayList<>(Arrays.asList(type.getDeclaredConstructors()));
        constructors.removeIf(Constructor::isSynthetic);
        constructors.sort(Comparator.<Constructor<?>, Boolean>comparing(c -> Modifier.isPrivate(c.getModifiers()))
                .thenComparing(Constructor::toGenericString));
        if (constructors.isEmpty()) {
            throw new Ungeneratable(type.getName() + " has no constructor");
        }
        long open = constructors.stream().filter(c -> !Modifier.isPrivate(c.getModifiers())).count();
        int first = open == 0 ? 0 : random.nextInt((int) open);
        Ungeneratable last = null;
        for (int i = 0; i < constructors.size(); i++) {
            Constructor<?> constructor = constructors.get((first + i) % constructors.size());
            try {
                List<Recipe> args = new ArrayList<>();
                for (Type param : constructor.getGenericParameterTypes()) {
                    args.add(value(param, depth + 1, true));
                }
                return Recipe.composite(Recipe.Kind.NEW, type.getName(), names(constructor.getParameterTypes()), args);
            } catch (Ungeneratable e) {
                last = e;
            }
        }
        throw last;
    }

    /** An interface answered by a proxy whose every method returns one generated value. */
    private Recipe proxy(Class<?> type, int depth) throws Ungeneratable {
        List<Method> methods = new ArrayList<>();
        for (Method method : type.getMethods()) {
            if (Modifier.isAbstract(method.getModifiers())) {
                methods.add(method);
            }
        }
        methods.sort(Comparator.comparing(Method::getName));
        List<String> names = new ArrayList<>();
        List<Recipe> answers = new ArrayList<>();
        for (Method method : methods) {
            if (names.contains(method.getName())) {
                continue;
            }
            names.add(method.getName());
            Class<?> returns = method.getReturnType();
            answers.add(returns == void.class ? Recipe.nothing() : value(method.getGenericReturnType(), depth + 1, true));
        }
        return Recipe.composite(Recipe.Kind.PROXY, type.getName(), names, answers);
    }

    private Recipe scalar() throws Ungeneratable {
        if (edge) {
            return edgePick(edgeScalars);
        }
        switch (random.nextInt(8)) {
            case 0:
                return Recipe.value(aString());
            case 1:
                return Recipe.value(random.nextBoolean());
            case 2:
                return Recipe.nothing();
            case 3:
                String text = aString();
                return Recipe.value(text.isEmpty() ? 'x' : text.charAt(0));
            default:
                return number();
        }
    }

    private Recipe number() {
        switch (random.nextInt(6)) {
            case 0:
                return Recipe.value(anInt());
            case 1:
                return Recipe.value(aLong());
            case 2:
                return Recipe.value((short) (int) anInt());
            case 3:
                return decimal();
            case 4:
                return Recipe.value(aDouble());
            default:
                return Recipe.value((byte) (int) anInt());
        }
    }

    /** Boundary decimals: signs, fractions, and magnitudes past a double's range (underflow, infinity). */
    private static final List<BigDecimal> EDGE_DECIMALS = java.util.stream.Stream.of("0", "-1", "1", "-0.5", "0.5",
            "-0.01", "1E+3", "-1E+3", "1E-400", "-1E-400", "1E+400", "-1E+400", "0E-10").map(BigDecimal::new).toList();

    /**
     * A decimal with a scale from -3 to 4, so that plain and scientific notations differ; among the
     * boundary values, one of {@link #EDGE_DECIMALS} half of the time.
     */
    private Recipe decimal() {
        if (edge && (!swept.containsKey(EDGE_DECIMALS) || random.nextBoolean())) {
            return Recipe.value(edgePick(EDGE_DECIMALS));
        }
        return Recipe.value(BigDecimal.valueOf(aLong(), random.nextInt(8) - 3));
    }

    /**
     * Bytes: a literal's UTF-8 bytes, jqwik's random byte arrays, or a sequence of blocks as binary
     * formats lay them out: big-endian 32-, 16- and 8-bit numbers, literal text, and
     * length-prefixed blocks (a 32- or 16-bit length and that many bytes).
     */
    byte[] bytes() {
        if (edge) {
            return edgePick(edgeBytes).clone();
        }
        int kind = random.nextInt(6);
        if (kind == 0) {
            return aString().getBytes(StandardCharsets.UTF_8);
        }
        if (kind == 1) {
            return draw(randomBytes);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int blocks = 1 + random.nextInt(5);
        for (int i = 0; i < blocks; i++) {
            switch (random.nextInt(6)) {
                case 0 -> out.writeBytes(ByteBuffer.allocate(4).putInt(anInt()).array());
                case 1 -> out.writeBytes(ByteBuffer.allocate(2).putShort((short) (int) anInt()).array());
                case 2 -> out.write(anInt());
                case 3 -> out.writeBytes(aString().getBytes(StandardCharsets.UTF_8));
                case 4 -> {
                    int length = aLength();
                    out.writeBytes(ByteBuffer.allocate(4).putInt(length).array());
                    out.writeBytes(filler(length));
                }
                default -> {
                    int length = aLength();
                    out.writeBytes(ByteBuffer.allocate(2).putShort((short) length).array());
                    out.writeBytes(filler(length));
                }
            }
        }
        return out.toByteArray();
    }

    private byte[] filler(int length) {
        byte[] text = aString().getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = text.length == 0 ? (byte) 'x' : text[i % text.length];
        }
        return out;
    }

    /**
     * Where an archive's entry may point, relative to where it is extracted: each level up, the
     * folder itself, a detour, an absolute path, a Windows separator, a sibling sharing the
     * destination's name as a prefix.
     */
    /** Whether a boundary stream is an archive (true) or plain bytes, taken in turn. */
    private static final List<Boolean> STREAM_SHAPES = List.of(true, true, false, true);

    private static final List<String> ENTRY_PREFIXES = List.of("../", "./", "", "../../", "a/../../", "a/../", "/",
            "..\\", "../" + Scratch.SIBLING + "/", "a/./../");

    /**
     * A boundary entry name: one of {@link #ENTRY_PREFIXES}, then nothing (the folder itself), a
     * plain file name or one of the task's; the first entry of an archive takes them in turn.
     */
    private String edgeEntryName() {
        boolean first = !swept.containsKey(ENTRY_PREFIXES);
        String prefix = edgePick(ENTRY_PREFIXES);
        List<String> names = Scratch.fileNames(literals);
        // The rounds go through the prefixes, and then, prefix by prefix, through the names.
        int pick = first ? edgeRound / ENTRY_PREFIXES.size() % (names.size() + 2) : random.nextInt(names.size() + 2);
        return prefix + (pick == 0 ? "" : pick == 1 ? "x.txt" : names.get(pick - 2));
    }

    /**
     * A zip archive of one to three entries, named and filled by the string generator (among the
     * boundary values, named by {@link #edgeEntryName}).
     */
    private byte[] zip() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes)) {
            int entries = 1 + random.nextInt(3);
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < entries; i++) {
                String name = edge ? edgeEntryName() : draw(strings);
                if (name.isEmpty() || seen.contains(name)) {
                    continue;
                }
                seen.add(name);
                out.putNextEntry(new ZipEntry(name));
                if (!name.endsWith("/")) {
                    out.write(draw(strings).getBytes(StandardCharsets.UTF_8));
                }
                out.closeEntry();
            }
        } catch (IOException | IllegalArgumentException e) {
            // A name the zip format cannot hold: the entries written so far make the archive.
        }
        return bytes.toByteArray();
    }

    private static Class<?> raw(Type type) throws Ungeneratable {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        if (type instanceof GenericArrayType g) {
            return java.lang.reflect.Array.newInstance(raw(g.getGenericComponentType()), 0).getClass();
        }
        if (type instanceof WildcardType w) {
            return raw(w.getUpperBounds()[0]);
        }
        if (type instanceof TypeVariable<?> v) {
            return raw(v.getBounds()[0]);
        }
        throw new Ungeneratable("no generator for " + type);
    }

    private static Type argument(Type type, int index) {
        if (type instanceof ParameterizedType p && p.getActualTypeArguments().length > index) {
            return p.getActualTypeArguments()[index];
        }
        return String.class;
    }

    static boolean isCollection(Object value) {
        return value instanceof Collection<?> || value instanceof Map<?, ?>;
    }
}
