import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;

class Input {
    String target(String input) throws IOException {
        String header = """
            header: input
            """;
        try (BufferedReader reader = new BufferedReader(new StringReader(input))) {
            String line = reader.readLine();
            return header + line;
        } catch (IOException error) {
            throw error;
        }
    }
}
