import java.util.ArrayList;
import java.util.List;

public class Comment {
    private final List<String> points = new ArrayList<>();

    public Comment supplyAltogether(List<String> more) {
        points.addAll(more);
        return this;
    }

    public int prey(List<String> treasures, Comment other) {
        List<String> transcript = new ArrayList<>();
        transcript.addAll(treasures);
        other.supplyAltogether(transcript).supplyAltogether(treasures);
        this.supplyAltogether(treasures);
        supplyAltogether(transcript);
        new ArrayList<String>(treasures).addAll(transcript);
        return transcript.size() + points.size();
    }
}
// rename line 12: Declined { reason: "kept `other`: no synonym that is free in scope" }
// rename line 12: Applied { detail: "Local `values` → `treasures`" }
// rename line 12: Applied { detail: "Method `target` → `prey`" }
// rename line 12: Applied { detail: "Type `Input` → `Comment`" }
// rename line 13: Applied { detail: "Local `copy` → `transcript`" }
// rename line 17: Applied { detail: "Method `addAll` → `supplyAltogether`" }
// rename line 19: Applied { detail: "Field `items` → `points`" }
