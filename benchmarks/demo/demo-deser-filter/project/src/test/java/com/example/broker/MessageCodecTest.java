package com.example.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.broker.MessageCodec.MessageFormatException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.junit.jupiter.api.Test;

class MessageCodecTest {

    /** Stands in for a gadget class: its readObject has a side effect an attacker wants. */
    static final class Gadget implements Serializable {
        private static final long serialVersionUID = 1L;
        static volatile boolean revived;
        String command = "touch /tmp/owned";

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            revived = true;
        }
    }

    private static byte[] serialize(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private final MessageCodec codec = new MessageCodec();

    @Test
    void untrustedClassIsNeverDeserialized() throws IOException {
        Gadget.revived = false;
        byte[] payload = serialize(new Gadget());
        try {
            codec.decode(payload);
        } catch (MessageFormatException expected) {
            // rejected, as it should be; what matters is whether the gadget came to life first
        }
        assertFalse(Gadget.revived, "an untrusted class was deserialized and its readObject ran");
    }

    @Test
    void roundTripsMessages() throws Exception {
        ChatMessage message = new ChatMessage("alice", "bob", "Grüße, see you at 10?", 1_700_000_000_000L);
        assertEquals(message, codec.decode(codec.encode(message)));
    }

    @Test
    void roundTripsEmptyBody() throws Exception {
        ChatMessage message = new ChatMessage("alice", "bob", "", 0L);
        assertEquals(message, codec.decode(codec.encode(message)));
    }

    @Test
    void trustedButWrongTypeIsRejected() throws IOException {
        MessageFormatException e = assertThrows(MessageFormatException.class, () -> codec.decode(serialize("just a string")));
        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
    }

    @Test
    void garbageIsRejected() {
        assertThrows(MessageFormatException.class, () -> codec.decode(new byte[] {1, 2, 3, 4}));
    }
}
