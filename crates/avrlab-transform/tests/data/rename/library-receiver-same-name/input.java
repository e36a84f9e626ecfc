import java.util.ArrayList;
import java.util.List;

public class Input {
    private final List<String> items = new ArrayList<>();

    public Input addAll(List<String> more) {
        items.addAll(more);
        return this;
    }

    public int target(List<String> values, Input other) {
        List<String> copy = new ArrayList<>();
        copy.addAll(values);
        other.addAll(copy).addAll(values);
        this.addAll(values);
        addAll(copy);
        new ArrayList<String>(values).addAll(copy);
        return copy.size() + items.size();
    }
}
