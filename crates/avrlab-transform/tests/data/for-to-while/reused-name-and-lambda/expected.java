import java.util.List;
import java.util.function.IntSupplier;

class Input {
    int target(List<String> names) {
        int total = 0;
        {
            int i = 0, n = names.size();
            while (i < n) {
                final int k = i;
                IntSupplier s = () -> k * 2;
                total += s.getAsInt();
                i++;
            }
        }
        int i = 0;
        while (i < 3) {
            total++;
            i++;
        }
        return total;
    }
}
// for-to-while line 7: Applied { detail: "for-to-while at line 7" }
// for-to-while line 12: Applied { detail: "for-to-while at line 12" }
