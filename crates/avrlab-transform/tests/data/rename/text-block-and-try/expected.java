import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;

class Input {
    String prey(String remark) throws IOException {
        String lintel = """
            header: input
            """;
        try (BufferedReader subscriber = new BufferedReader(new StringReader(remark))) {
            String line = subscriber.readLine();
            return lintel + line;
        } catch (IOException fault) {
            throw fault;
        }
    }
}
// rename line 6: Applied { detail: "Local `input` → `remark`" }
// rename line 6: Applied { detail: "Method `target` → `prey`" }
// rename line 7: Applied { detail: "Local `header` → `lintel`" }
// rename line 10: Applied { detail: "Local `reader` → `subscriber`" }
// rename line 11: Declined { reason: "kept `line`: no synonym that is free in scope" }
// rename line 13: Applied { detail: "Local `error` → `fault`" }
