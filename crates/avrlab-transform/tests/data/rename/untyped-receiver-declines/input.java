import java.util.List;
import java.util.Map;

public class Input {
    private int total;

    public Input addAll(List<String> more) {
        total += more.size();
        return this;
    }

    public int target(Map<String, Input> byName, List<String> values) {
        byName.get("first").addAll(values);
        addAll(values);
        return total;
    }
}
