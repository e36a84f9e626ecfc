import java.util.List;
import java.util.Map;

class Input {
    int target(List<String> names, Map<String, Integer> counts) {
        int total = 0;
        outer:
        for (final String name : names) {
            if (name.isEmpty()) {
                continue;
            }
            for (Map.Entry<String, Integer> e : counts.entrySet())
                if (e.getKey().equals(name)) continue outer;
            // A lambda captures the loop variable: it stays effectively final.
            Runnable r = () -> System.out.println(name);
            r.run();
            total += name.length();
        }
        for (Object o : names) {
            total += o.hashCode();
        }
        for (var n : names) {
            total += n.length();
        }
        return total;
    }
}
