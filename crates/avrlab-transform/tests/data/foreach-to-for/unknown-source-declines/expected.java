import java.util.Map;

class Input {
    int target(Map<String, String> env, String csv) {
        int n = 0;
        for (String part : csv.split(",")) {
            n += part.length();
        }
        for (String key : env.keySet()) {
            n += key.length();
        }
        for (var entry : env.entrySet()) {
            n += entry.getValue().length();
        }
        return n;
    }
}
// foreach-to-for line 6: Declined { reason: "cannot tell whether `csv.split(\",\")` is an array or an Iterable" }
// foreach-to-for line 9: Declined { reason: "cannot tell whether `env.keySet()` is an array or an Iterable" }
// foreach-to-for line 12: Declined { reason: "cannot tell whether `env.entrySet()` is an array or an Iterable" }
