import java.util.List;

class Input {
    int target(List<String> items) {
        int n = 0;
        for (java.util.Iterator<? extends String> iterator = items.iterator(); iterator.hasNext();) {
            String item = iterator.next();
            n += item.length();
        }
        return n;
    }
}
// foreach-to-for line 6: Applied { detail: "foreach-to-for at line 6" }
