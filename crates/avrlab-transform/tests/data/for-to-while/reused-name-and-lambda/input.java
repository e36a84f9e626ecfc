import java.util.List;
import java.util.function.IntSupplier;

class Input {
    int target(List<String> names) {
        int total = 0;
        for (int i = 0, n = names.size(); i < n; i++) {
            final int k = i;
            IntSupplier s = () -> k * 2;
            total += s.getAsInt();
        }
        for (int i = 0; i < 3; i++) total++;
        return total;
    }
}
