package avrlab.difftest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether two values, one from each of two versions of a project, behave the same for whoever
 * uses them: compared through their canonical forms ({@link Canon}), which each version's JVM
 * writes down, so the comparison runs where no version's code does. Two forms differ where a
 * caller could tell them apart: other characters, another element count, another exception type,
 * another field value of a project object (for the fields both versions declare: a field only one
 * has is how it is written, not what it does), a regular expression that matches a probe otherwise.
 * A JDK object that keeps identity equality, or a form that could not be written (too deep, too
 * large, its reading threw), is <em>not comparable</em>: neither the same nor a divergence.
 * A form that does not parse (the candidate's JVM answered out of protocol) differs from any.
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

    /** A parsed form: its tag, its texts, its parts, and its own text (which sorts a multiset). */
    record Node(char tag, List<String> texts, List<Node> parts, String source, int start, int end) {
        String form() {
            return source.substring(start, end);
        }
    }

    /** A form that does not follow the grammar. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private static final int MAX_DEPTH = 64;

    private Compare() {
    }

    /** Compares two canonical forms (the first is the candidate's where it matters, never trusted). */
    static Result forms(String a, String b) {
        Node x;
        Node y;
        try {
            x = parse(a);
        } catch (Malformed e) {
            return new Result(Outcome.DIFFERENT, "the first form does not parse: " + e.getMessage());
        }
        try {
            y = parse(b);
        } catch (Malformed e) {
            return new Result(Outcome.DIFFERENT, "the second form does not parse: " + e.getMessage());
        }
        return compare(x, y, "");
    }

    static Node parse(String form) throws Malformed {
        int[] at = {0};
        Node node = node(form, at, 0);
        if (at[0] != form.length()) {
            throw new Malformed("text after the form at " + at[0]);
        }
        return node;
    }

    private static Node node(String form, int[] at, int depth) throws Malformed {
        if (depth > MAX_DEPTH) {
            throw new Malformed("nested too deep");
        }
        if (at[0] >= form.length()) {
            throw new Malformed("the form ends early");
        }
        int start = at[0];
        char tag = form.charAt(at[0]++);
        List<String> texts = new ArrayList<>();
        List<Node> parts = new ArrayList<>();
        switch (tag) {
            case 'N', 'Y', 'q' -> {
            }
            case 'S', 'C', 'X', 'O', 'B' -> texts.add(text(form, at));
            case 'P', 'V', 'J' -> {
                texts.add(text(form, at));
                texts.add(text(form, at));
            }
            case 'E' -> {
                texts.add(text(form, at));
                parts.add(node(form, at, depth + 1));
            }
            case 'R' -> {
                texts.add(text(form, at));
                texts.add(text(form, at));
                int n = count(form, at);
                for (int i = 0; i < n; i++) {
                    texts.add(text(form, at));
                }
            }
            case 'Q' -> parts.add(node(form, at, depth + 1));
            case 'K' -> {
                parts.add(node(form, at, depth + 1));
                parts.add(node(form, at, depth + 1));
            }
            case 'L', 'U', 'T' -> {
                int n = count(form, at);
                for (int i = 0; i < n; i++) {
                    parts.add(node(form, at, depth + 1));
                }
            }
            case 'F' -> {
                texts.add(text(form, at));
                int n = count(form, at);
                for (int i = 0; i < n; i++) {
                    texts.add(text(form, at));
                    parts.add(node(form, at, depth + 1));
                }
            }
            default -> throw new Malformed("unknown tag at " + start);
        }
        return new Node(tag, texts, parts, form, start, at[0]);
    }

    private static int number(String form, int[] at, char end) throws Malformed {
        int start = at[0];
        long n = 0;
        while (at[0] < form.length() && Character.isDigit(form.charAt(at[0])) && at[0] - start < 9) {
            n = n * 10 + (form.charAt(at[0]++) - '0');
        }
        if (at[0] == start || at[0] >= form.length() || form.charAt(at[0]) != end) {
            throw new Malformed("a malformed number at " + start);
        }
        at[0]++;
        return (int) n;
    }

    private static int count(String form, int[] at) throws Malformed {
        int n = number(form, at, ';');
        if (n > form.length() - at[0]) {
            throw new Malformed("more parts than characters at " + at[0]);
        }
        return n;
    }

    private static String text(String form, int[] at) throws Malformed {
        int n = number(form, at, ':');
        if (n > form.length() - at[0]) {
            throw new Malformed("a text past the end at " + at[0]);
        }
        String text = form.substring(at[0], at[0] + n);
        at[0] += n;
        return text;
    }

    private static Result differ(String where, String what) {
        return new Result(Outcome.DIFFERENT, (where.isEmpty() ? "the value" : where) + ": " + what);
    }

    private static Result opaque(String where, String what) {
        return new Result(Outcome.NOT_COMPARABLE, (where.isEmpty() ? "the value" : where) + ": " + what);
    }

    private static final Map<Character, String> KINDS = new HashMap<>();

    static {
        String[][] kinds = {{"N", "null"}, {"S", "a text"}, {"P", "a path"}, {"R", "a regular expression"},
            {"E", "an exception"}, {"V", "an enum constant"}, {"C", "a class"}, {"J", "a JDK value"},
            {"B", "a byte buffer"}, {"Q", "an Optional"}, {"q", "an empty Optional"}, {"K", "an entry"},
            {"L", "a sequence"}, {"U", "a set"}, {"T", "a stream"}, {"F", "an object"}, {"Y", "a cycle"}};
        for (String[] kind : kinds) {
            KINDS.put(kind[0].charAt(0), kind[1]);
        }
    }

    private static String describe(Node node) {
        return switch (node.tag()) {
            case 'F', 'J', 'E', 'V', 'P' -> Recipe.simple(node.texts().get(0));
            default -> KINDS.getOrDefault(node.tag(), "?");
        };
    }

    private static Result compare(Node a, Node b, String where) {
        if (a.tag() == 'N' || b.tag() == 'N') {
            return a.tag() == b.tag() ? Result.SAME
                    : differ(where, a.tag() == 'N' ? "null in the first" : "null in the second");
        }
        if (a.tag() == 'X' || b.tag() == 'X') {
            return opaque(where, (a.tag() == 'X' ? a : b).texts().get(0));
        }
        if (a.tag() == 'O' || b.tag() == 'O') {
            return opaque(where, (a.tag() == 'O' ? a : b).texts().get(0) + " keeps identity equality");
        }
        if (a.tag() == 'U' && b.tag() == 'L' || a.tag() == 'L' && b.tag() == 'U') {
            // One side has no order: both are compared as multisets.
            return sequence(sorted(a), sorted(b), where);
        }
        if (a.tag() != b.tag()) {
            return differ(where, describe(a) + " against " + describe(b));
        }
        List<String> x = a.texts();
        List<String> y = b.texts();
        return switch (a.tag()) {
            case 'S' -> x.equals(y) ? Result.SAME : differ(where, "other characters");
            case 'P' -> x.equals(y) ? Result.SAME : differ(where, "another path");
            case 'C', 'V' -> x.equals(y) ? Result.SAME
                    : differ(where, x.get(x.size() - 1) + " against " + y.get(y.size() - 1));
            case 'J' -> x.equals(y) ? Result.SAME : differ(where, "not equal (" + Recipe.simple(x.get(0)) + ")");
            case 'B' -> x.equals(y) ? Result.SAME : differ(where, "other remaining bytes");
            case 'Y', 'q' -> Result.SAME;
            case 'R' -> patterns(x, y, where);
            case 'E' -> {
                if (!x.get(0).equals(y.get(0))) {
                    yield differ(where, x.get(0) + " against " + y.get(0));
                }
                Result message = compare(a.parts().get(0), b.parts().get(0), where);
                yield message.outcome() == Outcome.DIFFERENT ? differ(where, "another message") : message;
            }
            case 'Q' -> compare(a.parts().get(0), b.parts().get(0), where + ".get()");
            case 'K' -> {
                Result key = compare(a.parts().get(0), b.parts().get(0), where + "{key}");
                if (key.outcome() == Outcome.DIFFERENT) {
                    yield key;
                }
                Result value = compare(a.parts().get(1), b.parts().get(1), where + "{value}");
                yield value.outcome() == Outcome.SAME ? key : value;
            }
            case 'L', 'U', 'T' -> sequence(a, b, where);
            case 'F' -> fields(a, b, where);
            default -> differ(where, "an unknown form");
        };
    }

    private static Node sorted(Node sequence) {
        List<Node> parts = new ArrayList<>(sequence.parts());
        parts.sort(java.util.Comparator.comparing(Node::form));
        return new Node('U', List.of(), parts, sequence.source(), sequence.start(), sequence.end());
    }

    private static Result sequence(Node a, Node b, String where) {
        List<Node> xs = a.parts();
        List<Node> ys = b.parts();
        if (xs.size() != ys.size()) {
            return differ(where, xs.size() + " elements against " + ys.size());
        }
        Result firstOpaque = null;
        for (int i = 0; i < xs.size(); i++) {
            Result one = compare(xs.get(i), ys.get(i), where + "[" + i + "]");
            if (one.outcome() == Outcome.DIFFERENT) {
                return one;
            }
            if (one.outcome() == Outcome.NOT_COMPARABLE && firstOpaque == null) {
                firstOpaque = one;
            }
        }
        return firstOpaque != null ? firstOpaque : Result.SAME;
    }

    private static Result fields(Node a, Node b, String where) {
        if (!a.texts().get(0).equals(b.texts().get(0))) {
            return differ(where, Recipe.simple(a.texts().get(0)) + " against " + Recipe.simple(b.texts().get(0)));
        }
        Map<String, Node> theirs = new HashMap<>();
        for (int i = 1; i < b.texts().size(); i++) {
            theirs.putIfAbsent(b.texts().get(i), b.parts().get(i - 1));
        }
        Result firstOpaque = null;
        for (int i = 1; i < a.texts().size(); i++) {
            String name = a.texts().get(i);
            Node other = theirs.get(name);
            if (other == null) {
                continue;
            }
            Result one = compare(a.parts().get(i - 1), other, where + "." + name);
            if (one.outcome() == Outcome.DIFFERENT) {
                return one;
            }
            if (one.outcome() == Outcome.NOT_COMPARABLE && firstOpaque == null) {
                firstOpaque = one;
            }
        }
        return firstOpaque != null ? firstOpaque : Result.SAME;
    }

    private static Result patterns(List<String> x, List<String> y, String where) {
        if (x.get(0).equals(y.get(0)) && x.get(1).equals(y.get(1))) {
            return Result.SAME;
        }
        if (x.size() != y.size()) {
            return differ(where, "the regular expressions were probed differently");
        }
        for (int i = 2; i < x.size(); i++) {
            if (!x.get(i).equals(y.get(i))) {
                return differ(where, "the regular expressions match differently (" + Observe.cut(x.get(i))
                        + " against " + Observe.cut(y.get(i)) + ")");
            }
        }
        return Result.SAME;
    }
}
