import java.util.List;

class Input {
    int target(List<String> items) {
        return items.stream().filter(s -> !s.isEmpty()).mapToInt(String::length).sum();
    }
}
