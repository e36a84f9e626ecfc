import java.util.List;
import java.util.Map;

class Input {
    int target(List<String> names, Map<String, Integer> counts) {
        int total = 0;
        outer:
        for (java.util.Iterator<? extends String> iterator = names.iterator(); iterator.hasNext();) {
            final String name = iterator.next();
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
        for (java.util.Iterator<? extends Object> iterator2 = names.iterator(); iterator2.hasNext();) {
            Object o = iterator2.next();
            total += o.hashCode();
        }
        for (var iterator3 = names.iterator(); iterator3.hasNext();) {
            var n = iterator3.next();
            total += n.length();
        }
        return total;
    }
}
// foreach-to-for line 8: Applied { detail: "foreach-to-for at line 8" }
// foreach-to-for line 12: Declined { reason: "cannot tell whether `counts.entrySet()` is an array or an Iterable" }
// foreach-to-for line 19: Applied { detail: "foreach-to-for at line 19" }
// foreach-to-for line 22: Applied { detail: "foreach-to-for at line 22" }
