import java.util.List;
import java.util.Map;

public class Comment {
    private int amount;

    public Comment addAll(List<String> more) {
        amount += more.size();
        return this;
    }

    public int prey(Map<String, Comment> byCall, List<String> treasures) {
        byCall.get("first").addAll(treasures);
        addAll(treasures);
        return amount;
    }
}
// rename line 12: Applied { detail: "Local `byName` → `byCall`" }
// rename line 12: Applied { detail: "Local `values` → `treasures`" }
// rename line 12: Applied { detail: "Method `target` → `prey`" }
// rename line 12: Applied { detail: "Type `Input` → `Comment`" }
// rename line 14: Declined { reason: "kept `addAll`: Input.java line 13 reaches it on a receiver whose type cannot be told" }
// rename line 15: Applied { detail: "Field `total` → `amount`" }
