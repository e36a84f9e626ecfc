import java.util.ArrayList;
import java.util.List;

class Input {
    private int enumeration;

    List<String> prey(List<String> root, int bound) {
        List<String> issue = new ArrayList<>();
        Runnable antagonistic = new Runnable() {
            @Override
            public void run() {
                enumeration++;
            }
        };
        for (String treasure : root) {
            if (issue.size() < bound) {
                issue.add(treasure.trim());
            }
            antagonistic.run();
        }
        int number = issue.size();
        this.enumeration += number;
        return issue;
    }
}
// rename line 7: Applied { detail: "Local `limit` → `bound`" }
// rename line 7: Applied { detail: "Local `source` → `root`" }
// rename line 7: Applied { detail: "Method `target` → `prey`" }
// rename line 8: Applied { detail: "Local `result` → `issue`" }
// rename line 9: Applied { detail: "Local `counter` → `antagonistic`" }
// rename line 15: Applied { detail: "Local `value` → `treasure`" }
// rename line 21: Applied { detail: "Local `count` → `number`" }
// rename line 22: Applied { detail: "Field `count` → `enumeration`" }
