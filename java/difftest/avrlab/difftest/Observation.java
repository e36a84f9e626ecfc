package avrlab.difftest;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * What one call showed: how it ended (returned, threw which exception, timed out), the canonical
 * forms ({@link Canon}) of the values behind it (the returned value, the receiver and the arguments
 * after the call), what it printed and which files it left, and the rendering of all that for a
 * witness. Forms, not objects: an observation made in the candidate's JVM travels to the tester
 * as one line ({@link #wire}) and is compared there.
 */
record Observation(String text, String ending, String value, String receiver, String args, String rest) {
    private static final String NULL = "N";

    static Observation of(String ending) {
        return new Observation(ending, ending, NULL, NULL, NULL, "");
    }

    /** Whether two calls showed the same, compared as {@link Compare} compares forms. */
    Compare.Result compare(Observation other) {
        if (!ending.equals(other.ending)) {
            return new Compare.Result(Compare.Outcome.DIFFERENT, "the call " + ending + ", against " + other.ending);
        }
        if (!rest.equals(other.rest)) {
            return new Compare.Result(Compare.Outcome.DIFFERENT, "what the call printed or left in files");
        }
        Compare.Result firstOpaque = null;
        String[][] parts = {{"the returned value", value, other.value}, {"the receiver", receiver, other.receiver},
            {"the arguments after the call", args, other.args}};
        for (String[] part : parts) {
            Compare.Result one = Compare.forms(part[1], part[2]);
            if (one.outcome() == Compare.Outcome.DIFFERENT) {
                return new Compare.Result(one.outcome(), part[0] + ", " + one.where());
            }
            if (one.outcome() == Compare.Outcome.NOT_COMPARABLE && firstOpaque == null) {
                firstOpaque = new Compare.Result(one.outcome(), part[0] + ", " + one.where());
            }
        }
        return firstOpaque != null ? firstOpaque : Compare.Result.SAME;
    }

    /**
     * Whether a caller could tell the two calls apart: a value that cannot be compared (a JDK
     * stream passed in, say) is no difference, as it is no sameness.
     */
    boolean differs(Observation other) {
        return compare(other).outcome() == Compare.Outcome.DIFFERENT;
    }

    /** A text's UTF-16 units, two bytes each: every text, unpaired surrogates included, comes back the same. */
    private static byte[] chars(String text) {
        byte[] out = new byte[text.length() * 2];
        for (int i = 0; i < text.length(); i++) {
            out[2 * i] = (byte) (text.charAt(i) >> 8);
            out[2 * i + 1] = (byte) text.charAt(i);
        }
        return out;
    }

    /** The observation as one line of printable characters: its six parts' UTF-16 units, each base64. */
    String wire() {
        List<String> parts = List.of(text, ending, value, receiver, args, rest);
        StringBuilder out = new StringBuilder();
        for (String part : parts) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(Base64.getEncoder().encodeToString(chars(part)));
        }
        return out.toString();
    }

    /**
     * An observation read back from a line of another JVM; null for anything that is not six
     * base64 parts (the caller treats that JVM's answer as out of protocol).
     */
    static Observation fromWire(String line) {
        String[] parts = line.split(" ", -1);
        if (parts.length != 6) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String part : parts) {
            try {
                byte[] bytes = Base64.getDecoder().decode(part);
                if (bytes.length % 2 != 0) {
                    return null;
                }
                char[] chars = new char[bytes.length / 2];
                for (int i = 0; i < chars.length; i++) {
                    chars[i] = (char) ((bytes[2 * i] & 0xff) << 8 | bytes[2 * i + 1] & 0xff);
                }
                out.add(new String(chars));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return new Observation(Observe.cut(out.get(0)), Observe.cut(out.get(1)), out.get(2), out.get(3), out.get(4),
                out.get(5));
    }
}
