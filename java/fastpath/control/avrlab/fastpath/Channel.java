package avrlab.fastpath;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The helper's side of the authenticated channel to the host: requests are lines on standard
 * input, answers are frames on the process's standard output descriptor, each carrying an
 * HMAC-SHA256 under a key the host hands over first. The key lives only in this module, which
 * exports and opens nothing, so code under test in the same JVM cannot read it by reflection
 * (what code with {@code sun.misc.Unsafe} or {@code /proc/self/mem} could still do is written down
 * in ARCHITECTURE.md; the test JVM's guard flags both).
 */
final class Channel {
    private final OutputStream out = new FileOutputStream(FileDescriptor.out);
    private final BufferedReader in;
    private Mac mac;

    Channel(InputStream requests) {
        in = new BufferedReader(new InputStreamReader(requests, StandardCharsets.UTF_8));
    }

    /** The next request's tab-separated fields, or null when the host closed the channel. */
    String[] next() throws IOException {
        String line = in.readLine();
        if (line == null) {
            return null;
        }
        String[] fields = line.split("\t", -1);
        if (fields[0].equals("KEY") && mac == null) {
            try {
                mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(unhex(fields[1]), "HmacSHA256"));
            } catch (java.security.GeneralSecurityException e) {
                throw new IOException("cannot use the session key", e);
            }
            return next();
        }
        return mac == null ? null : fields;
    }

    /** Sends one authenticated frame: an answer ({@code FRAME}) or a question ({@code QUERY}). */
    synchronized void send(String kind, long seq, List<String> payload) throws IOException {
        String body = hex(String.join("\n", payload));
        String signed = kind + "\t" + seq + "\t" + body;
        byte[] tag = mac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
        // A leading newline ends any partial line that test code wrote to the same descriptor.
        String frame = "\n" + signed + "\t" + hex(tag) + "\n";
        out.write(frame.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static String[] split(String list) {
        return list.isEmpty() ? new String[0] : list.split(",");
    }

    static String hex(String text) {
        return hex(text.getBytes(StandardCharsets.UTF_8));
    }

    static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            s.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        }
        return s.toString();
    }

    static byte[] unhex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static String unhexText(String text) {
        return new String(unhex(text), StandardCharsets.UTF_8);
    }
}
