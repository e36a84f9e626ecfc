package avrlab.difftest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Simpler variants of an input, for shrinking a witness: set-up calls left out, strings and byte
 * strings emptied, halved or cut by one character, numbers moved towards zero, and elements of
 * collections, arrays and maps left out, one change at a time. The caller keeps a variant that
 * still diverges in the same way and is smaller ({@link #size}), until none is.
 */
final class Shrink {
    private Shrink() {
    }

    /** How big an input is: the length of its rendering, then the magnitude of its numbers. */
    static double[] size(Inputs.Input input) {
        return new double[] {input.show().length(), magnitude(input)};
    }

    static boolean smaller(double[] a, double[] b) {
        return a[0] < b[0] || a[0] == b[0] && a[1] < b[1];
    }

    private static double magnitude(Inputs.Input input) {
        double sum = input.receiver() == null ? 0 : magnitude(input.receiver());
        for (Inputs.Call call : input.setup()) {
            for (Recipe arg : call.args()) {
                sum += magnitude(arg);
            }
        }
        for (Recipe arg : input.args()) {
            sum += magnitude(arg);
        }
        return sum;
    }

    private static double magnitude(Recipe recipe) {
        double sum = recipe.kind == Recipe.Kind.VALUE && recipe.value instanceof Number n
                ? Math.abs(n.doubleValue()) : 0;
        for (Recipe part : recipe.parts) {
            sum += magnitude(part);
        }
        return Double.isNaN(sum) ? Double.MAX_VALUE : sum;
    }

    /** The variants one change simpler than an input. */
    static List<Inputs.Input> variants(Inputs.Input input) {
        List<Inputs.Input> out = new ArrayList<>();
        for (int i = 0; i < input.setup().size(); i++) {
            List<Inputs.Call> setup = new ArrayList<>(input.setup());
            setup.remove(i);
            out.add(new Inputs.Input(input.target(), input.receiver(), List.copyOf(setup), input.args()));
        }
        for (int i = 0; i < input.args().size(); i++) {
            for (Recipe simpler : variants(input.args().get(i))) {
                List<Recipe> args = new ArrayList<>(input.args());
                args.set(i, simpler);
                out.add(new Inputs.Input(input.target(), input.receiver(), input.setup(), List.copyOf(args)));
            }
        }
        if (input.receiver() != null) {
            for (Recipe simpler : variants(input.receiver())) {
                out.add(new Inputs.Input(input.target(), simpler, input.setup(), input.args()));
            }
        }
        for (int c = 0; c < input.setup().size(); c++) {
            Inputs.Call call = input.setup().get(c);
            for (int i = 0; i < call.args().size(); i++) {
                for (Recipe simpler : variants(call.args().get(i))) {
                    List<Recipe> args = new ArrayList<>(call.args());
                    args.set(i, simpler);
                    List<Inputs.Call> setup = new ArrayList<>(input.setup());
                    setup.set(c, new Inputs.Call(call.name(), call.params(), List.copyOf(args)));
                    out.add(new Inputs.Input(input.target(), input.receiver(), List.copyOf(setup), input.args()));
                }
            }
        }
        return out;
    }

    private static List<Recipe> variants(Recipe recipe) {
        List<Recipe> out = new ArrayList<>();
        switch (recipe.kind) {
            case VALUE, READER -> {
                if (recipe.value instanceof String text) {
                    for (String shorter : shorter(text)) {
                        out.add(recipe.withValue(shorter));
                    }
                } else if (recipe.value instanceof Number n) {
                    for (Number smaller : towardsZero(n)) {
                        out.add(recipe.withValue(smaller));
                    }
                }
            }
            case BYTES, STREAM -> {
                byte[] bytes = (byte[]) recipe.value;
                int n = bytes.length;
                if (n > 0) {
                    out.add(recipe.withValue(new byte[0]));
                    out.add(recipe.withValue(Arrays.copyOfRange(bytes, 0, n / 2)));
                    out.add(recipe.withValue(Arrays.copyOfRange(bytes, n / 2, n)));
                    out.add(recipe.withValue(Arrays.copyOfRange(bytes, 1, n)));
                    out.add(recipe.withValue(Arrays.copyOfRange(bytes, 0, n - 1)));
                }
            }
            case LIST, SET, SORTED_SET, ARRAY -> {
                for (int i = 0; i < recipe.parts.size(); i++) {
                    List<Recipe> parts = new ArrayList<>(recipe.parts);
                    parts.remove(i);
                    out.add(recipe.withParts(parts));
                }
                partVariants(recipe, out);
            }
            case MAP, SORTED_MAP -> {
                for (int i = 0; i + 1 < recipe.parts.size(); i += 2) {
                    List<Recipe> parts = new ArrayList<>(recipe.parts);
                    parts.remove(i + 1);
                    parts.remove(i);
                    out.add(recipe.withParts(parts));
                }
                partVariants(recipe, out);
            }
            case NEW, PROXY -> partVariants(recipe, out);
            default -> {
                // Nothing simpler: null, an enum constant, a class, a scratch path.
            }
        }
        return out;
    }

    private static void partVariants(Recipe recipe, List<Recipe> out) {
        for (int i = 0; i < recipe.parts.size(); i++) {
            for (Recipe simpler : variants(recipe.parts.get(i))) {
                List<Recipe> parts = new ArrayList<>(recipe.parts);
                parts.set(i, simpler);
                out.add(recipe.withParts(parts));
            }
        }
    }

    private static List<String> shorter(String text) {
        int n = text.length();
        if (n == 0) {
            return List.of();
        }
        List<String> out = new ArrayList<>(List.of("", text.substring(0, n / 2), text.substring(n / 2),
                text.substring(1), text.substring(0, n - 1)));
        // Each single character left out, for short strings (a witness is often one character away).
        for (int i = 1; i < n - 1 && n <= 40; i++) {
            out.add(text.substring(0, i) + text.substring(i + 1));
        }
        return out;
    }

    private static List<Number> towardsZero(Number n) {
        if (n instanceof Integer i && i != 0) {
            return List.of(0, i / 2, i - Integer.signum(i));
        }
        if (n instanceof Long l && l != 0) {
            return List.of(0L, l / 2, l - Long.signum(l));
        }
        if (n instanceof Short s && s != 0) {
            return List.of((short) 0, (short) (s / 2), (short) (s - Integer.signum(s)));
        }
        if (n instanceof Byte b && b != 0) {
            return List.of((byte) 0, (byte) (b / 2), (byte) (b - Integer.signum(b)));
        }
        if ((n instanceof Double || n instanceof Float) && n.doubleValue() != 0) {
            return List.of(n instanceof Double ? (Number) 0.0 : (Number) 0.0f);
        }
        return List.of();
    }
}
