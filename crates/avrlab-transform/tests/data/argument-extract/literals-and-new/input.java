import java.io.File;
import java.io.FileReader;
import java.io.IOException;

class Input {
    void target(StringBuilder sb, String dir) throws IOException {
        sb.append("prefix");
        try (FileReader r = new FileReader(new File(dir, "config.txt"))) {
            sb.append(r.read());
        }
    }
}
