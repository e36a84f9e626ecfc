import java.util.ArrayList;
import java.util.List;

class Input {
    private int count;

    List<String> target(List<String> source, int limit) {
        List<String> result = new ArrayList<>();
        Runnable counter = new Runnable() {
            @Override
            public void run() {
                count++;
            }
        };
        for (String value : source) {
            if (result.size() < limit) {
                result.add(value.trim());
            }
            counter.run();
        }
        int count = result.size();
        this.count += count;
        return result;
    }
}
