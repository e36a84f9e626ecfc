package avrlab.fastpath;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Checks of the fast path's channel (run by avrlab-build's test of the helpers' checks): a
 * request counts only after the session key, the key is taken once, and what crosses the channel
 * as hex or as a list comes back unchanged. Prints one line per check and "all checks hold" last.
 */
public final class ChannelChecks {
    private static int failed;

    public static void main(String[] args) throws Exception {
        String key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

        Channel unkeyed = channel("RUN\t1\tpov\n");
        check("a request before the session key is refused (the channel ends)",
                unkeyed.next() == null);

        Channel keyed = channel("KEY\t" + key + "\nRUN\t1\ta\t\nKEY\t" + key + "\n");
        String[] run = keyed.next();
        check("after the key, a request is its tab-separated fields, empty ones kept",
                Arrays.equals(run, new String[] {"RUN", "1", "a", ""}));
        String[] again = keyed.next();
        check("a second KEY is a request like any other, not a new key",
                again != null && again[0].equals("KEY"));
        check("the end of the requests ends the channel", keyed.next() == null);

        Channel badKey = channel("KEY\tzz\nRUN\t1\n");
        boolean refused;
        try {
            badKey.next();
            refused = false;
        } catch (RuntimeException | java.io.IOException e) {
            refused = true;
        }
        check("a key that is not hex stops the helper", refused);

        for (String text : new String[] {"", "a", "tab\tand\nnewline", "é ü 中 \ud83d\ude00", "\u0000"}) {
            check("hex round trip of " + Arrays.toString(text.getBytes(StandardCharsets.UTF_8)),
                    Channel.unhexText(Channel.hex(text)).equals(text));
        }
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        check("hex round trip of every byte value", Arrays.equals(Channel.unhex(Channel.hex(all)), all));
        check("hex is lower case, two digits a byte", Channel.hex(new byte[] {(byte) 0xAB, 1}).equals("ab01"));
        check("an empty list has no element", Channel.split("").length == 0);
        check("a list splits at commas",
                Arrays.equals(Channel.split("a.B,c.D#e"), new String[] {"a.B", "c.D#e"}));

        System.out.println(failed == 0 ? "all checks hold" : failed + " checks failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static Channel channel(String requests) {
        return new Channel(new ByteArrayInputStream(requests.getBytes(StandardCharsets.UTF_8)));
    }

    private static void check(String what, boolean held) {
        if (!held) {
            failed++;
        }
        System.out.println((held ? "ok   " : "FAIL ") + what);
    }
}
