import java.util.List;

class Input {
    int target(List<String> items) {
        var mapToInt2 = items.stream().filter(s -> !s.isEmpty()).mapToInt(String::length);
        return mapToInt2.sum();
    }
}
// call-chain-split line 5: Applied { detail: "call-chain-split at line 5" }
