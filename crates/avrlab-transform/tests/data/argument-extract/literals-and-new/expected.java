import java.io.File;
import java.io.FileReader;
import java.io.IOException;

class Input {
    void target(StringBuilder sb, String dir) throws IOException {
        String argument = "prefix";
        sb.append(argument);
        try (FileReader r = new FileReader(new File(dir, "config.txt"))) {
            sb.append(r.read());
        }
    }
}
// argument-extract line 7: Applied { detail: "argument-extract at line 7" }
// argument-extract line 9: Declined { reason: "no argument with a known type can move before the call" }
