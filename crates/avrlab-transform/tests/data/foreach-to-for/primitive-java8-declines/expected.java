import java.util.List;

class Input {
    long target(List<Integer> boxed, int[] values) {
        long sum = 0;
        for (long w : boxed) {
            sum += w;
        }
        for (int index = 0; index < values.length; index++) {
            int v = values[index];
            sum += v;
        }
        return sum;
    }
}
// foreach-to-for line 6: Declined { reason: "a `var` or primitive loop variable needs a `var` iterator (Java 10+)" }
// foreach-to-for line 9: Applied { detail: "foreach-to-for at line 9" }
