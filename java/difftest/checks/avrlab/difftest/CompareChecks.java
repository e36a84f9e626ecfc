package avrlab.difftest;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Checks of the comparison rules ({@link Canon}'s forms, {@link Compare} over them, and an
 * {@link Observation} on the wire), run by the Rust test `the_comparison_rules_hold` in
 * avrlab-exec: each line of output is one check, and the exit status says whether all held.
 */
final class CompareChecks {
    private static final Predicate<Class<?>> NONE = type -> false;
    private static int failed;

    private CompareChecks() {
    }

    public static void main(String[] args) {
        Canon.probeWith(List.of("abc", "a/b"));

        // Representation only: the same outcome.
        same("a list and another list class", List.of(1, 2, 3), new LinkedList<>(List.of(1, 2, 3)));
        same("a hash set and a sorted set", new HashSet<>(List.of("b", "a", "c")), new TreeSet<>(List.of("a", "b", "c")));
        same("a map in another order", Map.of("a", 1, "b", 2), new TreeMap<>(Map.of("b", 2, "a", 1)));
        same("a pattern spelled otherwise", Pattern.compile("a+"), Pattern.compile("aa*"));
        same("a pattern with its flag inline", Pattern.compile("abc", Pattern.CASE_INSENSITIVE), Pattern.compile("(?i)abc"));
        same("an array and a list", new int[] {1, 2}, List.of(1, 2));
        same("streams left to read alike", new ByteArrayInputStream(new byte[] {1, 2, 3}),
                new ByteArrayInputStream(new byte[] {1, 2, 3}));

        // What a caller can tell apart.
        differ("another element", List.of(1, 2, 3), List.of(1, 2, 4));
        differ("a pattern that matches the empty text", Pattern.compile("a+"), Pattern.compile("a*"));
        differ("an exception of another type", new IllegalArgumentException("x"), new IllegalStateException("x"));
        differ("an exception with another message", new IllegalArgumentException("x"), new IllegalArgumentException("y"));
        differ("a number of another type", 1, 1L);
        differ("null and a value", null, "");
        ByteArrayInputStream read = new ByteArrayInputStream(new byte[] {1, 2, 3});
        read.read();
        differ("a stream read further", read, new ByteArrayInputStream(new byte[] {1, 2, 3}));
        differ("a reader with other text left", new StringReader("ab"), new StringReader("ac"));

        // Neither: no identity equality is a divergence, nor a sameness.
        notComparable("objects that keep identity equality", new Object(), new Object());
        notComparable("a list of them", List.of(new Object()), List.of(new Object()));

        // Writing a form leaves a stream as it was, and a cycle or a depth ends the walk.
        ByteArrayInputStream kept = new ByteArrayInputStream(new byte[] {7, 8});
        Canon.of(kept, NONE, null);
        check("a form leaves the stream to be read", kept.available() == 2 && kept.read() == 7);
        List<Object> cycle = new ArrayList<>();
        cycle.add(cycle);
        check("a list holding itself has a form", Canon.of(cycle, NONE, null).contains("Y"));
        Object deep = "end";
        for (int i = 0; i < 20; i++) {
            deep = List.of(deep);
        }
        check("a value nested deeper than the walk goes is not comparable",
                Compare.forms(Canon.of(deep, NONE, null), Canon.of(deep, NONE, null)).outcome() == Compare.Outcome.NOT_COMPARABLE);
        check("the scratch folder is named as such", Canon.of("/tmp/s1/x", NONE, "/tmp/s1").equals(Canon.of("/tmp/s2/x", NONE, "/tmp/s2")));

        // Forms from another JVM are untrusted text.
        for (String bad : List.of("", "S", "S9:abc", "L2;S1:a", "Z", "S-1:", "L99999999999;", "S1:ab")) {
            Compare.Result result = Compare.forms(bad, Canon.of("a", NONE, null));
            check("a malformed form (" + bad + ") is a difference, not a crash", result.outcome() == Compare.Outcome.DIFFERENT);
        }
        Observation shown = new Observation("returned \ud800x", "returned", Canon.of("\udc00", NONE, null), "N", "N", "");
        check("an observation crosses the wire unchanged, unpaired surrogates too", shown.equals(Observation.fromWire(shown.wire())));
        for (String bad : List.of("", "a b", "!!! a b c d e", "a b c d e f g")) {
            check("a line out of protocol (" + bad + ") is no observation", Observation.fromWire(bad) == null);
        }

        System.out.println(failed == 0 ? "all checks hold" : failed + " checks failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static void same(String what, Object a, Object b) {
        outcome(what, a, b, Compare.Outcome.SAME);
    }

    private static void differ(String what, Object a, Object b) {
        outcome(what, a, b, Compare.Outcome.DIFFERENT);
    }

    private static void notComparable(String what, Object a, Object b) {
        outcome(what, a, b, Compare.Outcome.NOT_COMPARABLE);
    }

    private static void outcome(String what, Object a, Object b, Compare.Outcome expected) {
        Compare.Result result = Compare.forms(Canon.of(a, NONE, null), Canon.of(b, NONE, null));
        check(what + ": " + expected + (result.where().isEmpty() ? "" : " (" + result.where() + ")"),
                result.outcome() == expected);
    }

    private static void check(String what, boolean held) {
        if (!held) {
            failed++;
        }
        System.out.println((held ? "ok   " : "FAIL ") + what);
    }
}
