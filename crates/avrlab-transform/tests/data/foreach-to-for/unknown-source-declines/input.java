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
