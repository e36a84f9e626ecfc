package avrlab.difftest;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The tester's side of the candidate's JVM ({@link Exec}): the two pipes, read on a thread of their
 * own with a bound on each line and on the wait for it. What comes back is read as untrusted: a
 * line out of protocol, an answer to another input, silence past the call's time and a JVM that
 * ended are each an observation of their own (which no fixed version shows), and from then on every
 * call is answered with it, so a candidate that breaks its JVM diverges rather than stops the test.
 */
final class Remote {
    /** The longest line read from the candidate's JVM (three forms of at most 1 MiB, base64). */
    private static final int MAX_LINE = 16 << 20;
    /** How long the candidate's JVM may take past a call's own limit (it stops the call itself). */
    private static final long GRACE_MILLIS = 10_000;
    /**
     * How the candidate's JVM stopped writing: kept apart from its lines (whatever it writes is a
     * line, never one of these).
     */
    private enum Ended {
        PIPE_CLOSED, LINE_TOO_LONG
    }

    private final OutputStream out;
    /** The lines the candidate's JVM wrote (strings), then how it stopped ({@link Ended}). */
    private final BlockingQueue<Object> lines = new ArrayBlockingQueue<>(4);
    private final long callMillis;
    private int sequence;
    /** Why the candidate's JVM no longer answers (null while it does). */
    private String broken;

    private Remote(OutputStream out, InputStream in, long callMillis) {
        this.out = out;
        this.callMillis = callMillis;
        Thread reader = new Thread(() -> read(in), "avrlab-difftest-remote");
        reader.setDaemon(true);
        reader.start();
    }

    /** Opens the pipes (the candidate's input first, as it opens them) and starts the reader. */
    static Remote open(String to, String from, long callMillis) throws IOException {
        OutputStream out = new FileOutputStream(to);
        InputStream in = new FileInputStream(from);
        return new Remote(out, in, callMillis);
    }

    private void read(InputStream in) {
        try (in) {
            byte[] buffer = new byte[1 << 16];
            java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
            int n;
            while ((n = in.read(buffer)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        lines.put(pending.toString(StandardCharsets.UTF_8));
                        pending.reset();
                    } else if (pending.size() >= MAX_LINE) {
                        lines.put(Ended.LINE_TOO_LONG);
                        return;
                    } else {
                        pending.write(buffer[i]);
                    }
                }
            }
        } catch (IOException e) {
            // A pipe that fails has closed.
        } catch (InterruptedException e) {
            return;
        }
        try {
            lines.put(Ended.PIPE_CLOSED);
        } catch (InterruptedException e) {
            // Nobody waits any more.
        }
    }

    /** Sends {@code go} and waits for the candidate's JVM to be ready. */
    void start(long timeoutMillis) throws IOException, InterruptedException {
        send("go");
        Object answer = lines.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        if (!"ready".equals(answer)) {
            broken = answer == null ? "the candidate's JVM did not start in time" : "the candidate's JVM did not start";
        }
    }

    /** Whether the candidate's JVM started and answers. */
    String broken() {
        return broken;
    }

    /**
     * Sends an input to the candidate's JVM, which works on it while the tester goes on (the
     * fix's version runs meanwhile); {@link #answer} reads what it showed. One input at a time:
     * every ask is answered before the next.
     */
    int ask(Inputs.Input input) throws IOException {
        if (broken != null) {
            return 0;
        }
        int seq = ++sequence;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream stream = new ObjectOutputStream(bytes)) {
            stream.writeObject(input);
        }
        try {
            send("call " + seq + " " + Base64.getEncoder().encodeToString(bytes.toByteArray()));
        } catch (IOException e) {
            broken = "the candidate's JVM ended";
        }
        return seq;
    }

    /** What the candidate's version showed on the input {@link #ask} sent as {@code seq}. */
    Observation answer(int seq) throws InterruptedException {
        if (broken != null) {
            return Observation.of(broken);
        }
        Object got = lines.poll(callMillis + GRACE_MILLIS, TimeUnit.MILLISECONDS);
        String prefix = "obs " + seq + " ";
        if (got == null) {
            broken = "the candidate's JVM stopped answering";
        } else if (got == Ended.PIPE_CLOSED) {
            broken = "the candidate's JVM ended";
        } else if (!(got instanceof String line) || !line.startsWith(prefix)) {
            broken = "the candidate's JVM answered out of protocol";
        } else {
            Observation shown = Observation.fromWire(line.substring(prefix.length()));
            if (shown != null) {
                return shown;
            }
            broken = "the candidate's JVM answered out of protocol";
        }
        return Observation.of(broken);
    }

    /** {@code [lines with code, lines reached]} among the candidate's changed lines, as its JVM counts them; null if it cannot. */
    long[] coverage() throws InterruptedException {
        if (broken != null) {
            return null;
        }
        try {
            send("coverage");
        } catch (IOException e) {
            return null;
        }
        if (!(lines.poll(GRACE_MILLIS, TimeUnit.MILLISECONDS) instanceof String line)
                || !line.startsWith("coverage ")) {
            return null;
        }
        String[] parts = line.split(" ");
        try {
            if (parts.length == 3) {
                long withCode = Long.parseLong(parts[1]);
                long reached = Long.parseLong(parts[2]);
                if (withCode >= 0 && reached >= 0 && reached <= withCode) {
                    return new long[] {withCode, reached};
                }
            }
        } catch (NumberFormatException e) {
            // Out of protocol: no coverage.
        }
        return null;
    }

    /** Tells the candidate's JVM to end. */
    void end() {
        try {
            send("end");
        } catch (IOException e) {
            // It has ended already.
        }
    }

    private void send(String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
