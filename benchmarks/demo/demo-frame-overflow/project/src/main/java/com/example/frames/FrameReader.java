package com.example.frames;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a buffer of length-prefixed frames, as read from a socket or a compressed block: each
 * frame is a 4-byte big-endian signed length followed by that many payload bytes. Payloads are
 * returned as read-only views of the buffer, without copying.
 */
public final class FrameReader {

    static final int HEADER_SIZE = 4;

    /** A buffer whose bytes do not form a sequence of complete frames. */
    public static final class FrameFormatException extends Exception {
        public FrameFormatException(String message) {
            super(message);
        }
    }

    private FrameReader() {
    }

    /** Returns the payloads of all frames in the buffer, in order. */
    public static List<ByteBuffer> readFrames(byte[] buffer) throws FrameFormatException {
        List<ByteBuffer> frames = new ArrayList<>();
        int position = 0;
        while (position < buffer.length) {
            if (buffer.length - position < HEADER_SIZE) {
                throw new FrameFormatException("truncated frame header at offset " + position);
            }
            int length = readInt(buffer, position);
            int start = position + HEADER_SIZE;
            if (start + length > buffer.length) {
                throw new FrameFormatException("frame at offset " + position + " declares " + length
                        + " bytes but only " + (buffer.length - start) + " remain");
            }
            frames.add(ByteBuffer.wrap(buffer, start, length).slice().asReadOnlyBuffer());
            position = start + length;
        }
        return frames;
    }

    private static int readInt(byte[] buffer, int offset) {
        return (buffer[offset] & 0xff) << 24 | (buffer[offset + 1] & 0xff) << 16
                | (buffer[offset + 2] & 0xff) << 8 | (buffer[offset + 3] & 0xff);
    }
}
