package com.example.broker;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * Turns chat messages into bytes and back with Java serialization, for a message broker's
 * persistent store. Payloads come from clients, so decoding only admits trusted classes.
 */
public final class MessageCodec {

    /** Classes that a stored message may contain. */
    static final Set<String> TRUSTED_CLASSES = Set.of(ChatMessage.class.getName(), String.class.getName());
    private static final long MAX_DEPTH = 5;
    private static final long MAX_REFERENCES = 100;

    /** A payload that is not a well-formed, trusted chat message. */
    public static final class MessageFormatException extends Exception {
        public MessageFormatException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public byte[] encode(ChatMessage message) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(message);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize a chat message", e);
        }
        return bytes.toByteArray();
    }

    public ChatMessage decode(byte[] payload) throws MessageFormatException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(payload))) {
            in.setObjectInputFilter(MessageCodec::checkClass);
            Object decoded = in.readObject();
            if (decoded instanceof ChatMessage message) {
                return message;
            }
            throw new MessageFormatException("payload is a " + decoded.getClass().getName() + ", not a chat message", null);
        } catch (IOException | ClassNotFoundException e) {
            throw new MessageFormatException("cannot decode payload: " + e, e);
        }
    }

    /** The deserialization filter: admits the trusted classes and bounds the size of the object graph. */
    static ObjectInputFilter.Status checkClass(ObjectInputFilter.FilterInfo info) {
        if (info.depth() > MAX_DEPTH || info.references() > MAX_REFERENCES) {
            return ObjectInputFilter.Status.REJECTED;
        }
        Class<?> type = info.serialClass();
        if (type == null) {
            return ObjectInputFilter.Status.UNDECIDED;
        }
        while (type.isArray()) {
            type = type.getComponentType();
        }
        if (type.isPrimitive() || TRUSTED_CLASSES.contains(type.getName())) {
            return ObjectInputFilter.Status.ALLOWED;
        }
        return ObjectInputFilter.Status.UNDECIDED;
    }
}
