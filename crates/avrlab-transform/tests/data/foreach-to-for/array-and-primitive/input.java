import java.util.List;

class Input {
    private final int[] weights = {1, 2, 3};

    long target(int[] values, List<Integer> boxed, String[] words) {
        long sum = 0;
        for (int v : values) {
            sum += v;
        }
        for (long w : boxed) {
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
