package com.example.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The header fields of an HTTP/1.1 message. Names compare case-insensitively and keep the
 * spelling they were first given; a name may carry several values. Every value that enters must
 * be free of CR, LF and NUL, since {@link #toWireFormat()} writes values verbatim.
 */
public final class HttpHeaders {

    private record Field(String name, List<String> values) {
    }

    private final Map<String, Field> fields = new LinkedHashMap<>();

    /** Appends a value to the values of a header. */
    public HttpHeaders add(String name, String value) {
        validateName(name);
        validateValue(value);
        field(name).values().add(value);
        return this;
    }

    /** Appends several values to the values of a header. */
    public HttpHeaders addAll(String name, Iterable<String> values) {
        validateName(name);
        List<String> target = field(name).values();
        for (String value : values) {
            target.add(value);
        }
        return this;
    }

    /** Replaces the values of a header with one value. */
    public HttpHeaders set(String name, String value) {
        validateName(name);
        validateValue(value);
        List<String> target = field(name).values();
        target.clear();
        target.add(value);
        return this;
    }

    /** Replaces the values of a header with the given values. */
    public HttpHeaders setAll(String name, Iterable<String> values) {
        validateName(name);
        List<String> replacement = new ArrayList<>();
        for (String value : values) {
            replacement.add(value);
        }
        List<String> target = field(name).values();
        target.clear();
        target.addAll(replacement);
        return this;
    }

    /** Returns the first value of a header, or null when it has none. */
    public String get(String name) {
        Field field = fields.get(name.toLowerCase(Locale.ROOT));
        return field == null || field.values().isEmpty() ? null : field.values().get(0);
    }

    /** Returns all values of a header, in the order they were added. */
    public List<String> getAll(String name) {
        Field field = fields.get(name.toLowerCase(Locale.ROOT));
        return field == null ? List.of() : List.copyOf(field.values());
    }

    /** Renders the header section as it goes on the wire: one "Name: value" line per value. */
    public String toWireFormat() {
        StringBuilder out = new StringBuilder();
        for (Field field : fields.values()) {
            for (String value : field.values()) {
                out.append(field.name()).append(": ").append(value).append("\r\n");
            }
        }
        return out.toString();
    }

    private Field field(String name) {
        return fields.computeIfAbsent(name.toLowerCase(Locale.ROOT), key -> new Field(name, new ArrayList<>()));
    }

    private static void validateName(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty header name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean token = c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
            if (!token) {
                throw new IllegalArgumentException("invalid character in header name: " + name);
            }
        }
    }

    private static void validateValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == '\0') {
                throw new IllegalArgumentException("header value contains CR, LF or NUL");
            }
        }
    }
}
