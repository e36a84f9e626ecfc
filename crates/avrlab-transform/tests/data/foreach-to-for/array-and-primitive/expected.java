import java.util.List;

class Input {
    private final int[] weights = {1, 2, 3};

    long target(int[] values, List<Integer> boxed, String[] words) {
        long sum = 0;
        for (int index = 0; index < values.length; index++) {
            int v = values[index];
            sum += v;
        }
        for (var iterator = boxed.iterator(); iterator.hasNext();) {
            long w = iterator.next();
            sum += w;
        }
        for (String word : words) {
            words = new String[0];
            sum += word.length();
        }
        for (int w : weights) {
            sum += w;
        }
        return sum;
    }
}
// foreach-to-for line 8: Applied { detail: "foreach-to-for at line 8" }
// foreach-to-for line 11: Applied { detail: "foreach-to-for at line 11" }
// foreach-to-for line 14: Declined { reason: "`words` is assigned inside the loop" }
// foreach-to-for line 18: Declined { reason: "the loop runs over an array field" }
