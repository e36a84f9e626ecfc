import java.util.List;

class Input {
    long target(List<Integer> boxed, int[] values) {
        long sum = 0;
        for (long w : boxed) {
            sum += w;
        }
        for (int v : values) sum += v;
        return sum;
    }
}
