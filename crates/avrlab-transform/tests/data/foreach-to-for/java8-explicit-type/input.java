import java.util.List;

class Input {
    int target(List<String> items) {
        int n = 0;
        for (String item : items) {
            n += item.length();
        }
        return n;
    }
}
