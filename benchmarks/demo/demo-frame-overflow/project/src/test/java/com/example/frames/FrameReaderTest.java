package com.example.frames;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.frames.FrameReader.FrameFormatException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameReaderTest {

    private static byte[] frame(int declaredLength, String payload) {
        byte[] bytes = payload.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(4 + bytes.length).putInt(declaredLength).put(bytes).array();
    }

    private static byte[] frame(String payload) {
        return frame(payload.length(), payload);
    }

    private static byte[] bytes(ByteBuffer payload) {
        byte[] bytes = new byte[payload.remaining()];
        payload.duplicate().get(bytes);
        return bytes;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void hugeDeclaredLengthIsAFormatError() {
        byte[] buffer = concat(frame("hi"), frame(Integer.MAX_VALUE, "x"));
        assertThrows(FrameFormatException.class, () -> FrameReader.readFrames(buffer));
    }

    @Test
    void negativeDeclaredLengthIsAFormatError() {
        byte[] buffer = concat(frame("hi"), frame(-3, "xyz"));
        assertThrows(FrameFormatException.class, () -> FrameReader.readFrames(buffer));
    }

    @Test
    void readsFramesInOrder() throws Exception {
        List<ByteBuffer> frames = FrameReader.readFrames(concat(frame("alpha"), frame("be"), frame("gamma!")));
        assertEquals(3, frames.size());
        assertArrayEquals("alpha".getBytes(StandardCharsets.US_ASCII), bytes(frames.get(0)));
        assertArrayEquals("be".getBytes(StandardCharsets.US_ASCII), bytes(frames.get(1)));
        assertArrayEquals("gamma!".getBytes(StandardCharsets.US_ASCII), bytes(frames.get(2)));
    }

    @Test
    void emptyFrameHasEmptyPayload() throws Exception {
        List<ByteBuffer> frames = FrameReader.readFrames(concat(frame(""), frame("z")));
        assertEquals(2, frames.size());
        assertArrayEquals(new byte[0], bytes(frames.get(0)));
    }

    @Test
    void emptyBufferHasNoFrames() throws Exception {
        assertEquals(List.of(), FrameReader.readFrames(new byte[0]));
    }

    @Test
    void truncatedHeaderIsAFormatError() {
        assertThrows(FrameFormatException.class, () -> FrameReader.readFrames(concat(frame("ok"), new byte[] {0, 0})));
    }

    @Test
    void truncatedPayloadIsAFormatError() {
        assertThrows(FrameFormatException.class, () -> FrameReader.readFrames(frame(10, "short")));
    }
}
