package avrlab.difftest;

import java.io.File;
import java.io.OutputStream;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.regex.Pattern;

/**
 * What a call shows to whoever uses the code: its result rendered in a stable form (the same value
 * renders the same text in every class loader and run), and what it printed and logged meanwhile.
 * Unordered collections render sorted; project objects render as their fields; identity hashes
 * and lambda class names are blanked, as they differ between runs without meaning anything.
 */
final class Observe {
    /** Longest rendering of one observation; a longer one is cut (and marked). */
    static final int MAX_TEXT = 4000;
    private static final int MAX_DEPTH = 8;
    private static final Pattern IDENTITY = Pattern.compile("@[0-9a-f]{4,}|\\$\\$Lambda\\$?[0-9/x.a-f]*");

    private Observe() {
    }

    static String render(Object value, ClassLoader project) {
        StringBuilder out = new StringBuilder();
        render(value, project, out, 0, new IdentityHashMap<>());
        return cut(IDENTITY.matcher(out).replaceAll("#"));
    }

    static String cut(String text) {
        return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT) + "…(cut)";
    }

    private static void render(Object value, ClassLoader project, StringBuilder out, int depth,
            IdentityHashMap<Object, Boolean> open) {
        if (out.length() > MAX_TEXT) {
            return;
        }
        if (value == null) {
            out.append("null");
            return;
        }
        if (value instanceof String || value instanceof Character) {
            out.append(literal(value));
            return;
        }
        if ((value instanceof Number || value instanceof Boolean) && value.getClass().getName().startsWith("java.")) {
            out.append(value instanceof Integer || value instanceof Boolean ? value.toString()
                    : value.getClass().getSimpleName() + "(" + value + ")");
            return;
        }
        if (value instanceof Enum<?> constant) {
            out.append(Recipe.simple(constant.getDeclaringClass().getName())).append('.').append(constant.name());
            return;
        }
        if (value instanceof Class<?> type) {
            out.append("class ").append(type.getName());
            return;
        }
        if (value instanceof Path || value instanceof File) {
            out.append("path ").append(literal(value.toString()));
            return;
        }
        if (value instanceof Pattern pattern) {
            out.append("Pattern(").append(literal(pattern.pattern())).append(", ").append(pattern.flags()).append(')');
            return;
        }
        if (value instanceof Throwable) {
            out.append("a ").append(value.getClass().getName());
            return;
        }
        if (depth >= MAX_DEPTH || open.containsKey(value)) {
            out.append("…");
            return;
        }
        open.put(value, Boolean.TRUE);
        try {
            if (value instanceof byte[] bytes) {
                out.append("bytes(").append(hex(bytes)).append(')');
            } else if (value instanceof ByteBuffer buffer) {
                ByteBuffer view = buffer.duplicate();
                byte[] bytes = new byte[view.remaining()];
                view.get(bytes);
                out.append("ByteBuffer(").append(hex(bytes)).append(')');
            } else if (value.getClass().isArray()) {
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < Array.getLength(value); i++) {
                    items.add(Array.get(value, i));
                }
                sequence(items, true, "[", "]", project, out, depth, open);
            } else if (value instanceof CharSequence text) {
                out.append(literal(text.toString()));
            } else if (value instanceof Optional<?> optional) {
                out.append("Optional(");
                render(optional.orElse(null), project, out, depth + 1, open);
                out.append(optional.isPresent() ? ")" : " empty)");
            } else if (value instanceof Map<?, ?> map) {
                boolean ordered = map instanceof SortedMap || map instanceof LinkedHashMap || map instanceof EnumMap;
                List<Object> entries = new ArrayList<>();
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    StringBuilder pair = new StringBuilder();
                    render(entry.getKey(), project, pair, depth + 1, open);
                    pair.append('=');
                    render(entry.getValue(), project, pair, depth + 1, open);
                    entries.add(new Rendered(pair.toString()));
                }
                sequence(entries, ordered, "{", "}", project, out, depth, open);
            } else if (value instanceof Collection<?> collection) {
                boolean ordered = collection instanceof List || collection instanceof SortedSet
                        || collection instanceof LinkedHashSet || collection instanceof EnumSet
                        || collection instanceof java.util.Queue;
                sequence(new ArrayList<>(collection), ordered, "[", "]", project, out, depth, open);
            } else if (value.getClass().getClassLoader() == project || value.getClass().isRecord()) {
                fields(value, project, out, depth, open);
            } else if (overridesToString(value)) {
                out.append(value.getClass().getSimpleName()).append('(').append(literal(value.toString())).append(')');
            } else {
                out.append("a ").append(value.getClass().getName());
            }
        } catch (RuntimeException | LinkageError e) {
            out.append("(unrenderable: ").append(e.getClass().getName()).append(')');
        } finally {
            open.remove(value);
        }
    }

    private static void sequence(List<?> items, boolean ordered, String open, String close, ClassLoader project,
            StringBuilder out, int depth, IdentityHashMap<Object, Boolean> seen) {
        List<String> rendered = new ArrayList<>();
        for (Object item : items) {
            if (item instanceof Rendered r) {
                rendered.add(r.text());
            } else {
                StringBuilder one = new StringBuilder();
                render(item, project, one, depth + 1, seen);
                rendered.add(one.toString());
            }
        }
        if (!ordered) {
            rendered.sort(null);
        }
        out.append(open).append(String.join(", ", rendered)).append(close);
    }

    private record Rendered(String text) {
    }

    private static void fields(Object value, ClassLoader project, StringBuilder out, int depth,
            IdentityHashMap<Object, Boolean> open) {
        out.append(Recipe.simple(value.getClass().getName())).append('{');
        boolean first = true;
        for (Class<?> type = value.getClass(); type != null && (type.getClassLoader() == project || type.isRecord());
                type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || field.isSynthetic()) {
                    continue;
                }
                out.append(first ? "" : ", ").append(field.getName()).append('=');
                first = false;
                try {
                    field.setAccessible(true);
                    render(field.get(value), project, out, depth + 1, open);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    out.append("(unreadable)");
                }
            }
        }
        out.append('}');
    }

    private static boolean overridesToString(Object value) {
        try {
            return value.getClass().getMethod("toString").getDeclaringClass() != Object.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** A Java-like literal of a string, character or JDK value. */
    static String literal(Object value) {
        if (value instanceof String text) {
            return '"' + escape(text) + '"';
        }
        if (value instanceof Character c) {
            return "'" + escape(String.valueOf(c)) + "'";
        }
        if (value instanceof Long n) {
            return n + "L";
        }
        if (value instanceof Short n) {
            return "(short) " + n;
        }
        if (value instanceof Byte n) {
            return "(byte) " + n;
        }
        if (value instanceof java.math.BigDecimal n) {
            return "new BigDecimal(\"" + n + "\")";
        }
        if (value instanceof java.nio.charset.Charset c) {
            return "Charset.forName(\"" + c.name() + "\")";
        }
        return String.valueOf(value);
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < bytes.length && i < 512; i++) {
            out.append(String.format("%02x", bytes[i] & 0xff));
        }
        if (bytes.length > 512) {
            out.append("…(").append(bytes.length).append(" bytes)");
        }
        return out.toString();
    }

    /**
     * What the code under test prints and logs while a call runs: standard output and error and
     * every log record (java.util.logging, at the levels its loggers let through), bounded.
     */
    static final class Capture {
        private static final int MAX = 2000;
        private static StringBuilder current;

        private Capture() {
        }

        static void install() {
            OutputStream sink = new OutputStream() {
                @Override
                public void write(int b) {
                    append(String.valueOf((char) (b & 0xff)));
                }

                @Override
                public void write(byte[] bytes, int offset, int length) {
                    append(new String(bytes, offset, length, java.nio.charset.StandardCharsets.UTF_8));
                }
            };
            java.io.PrintStream stream = new java.io.PrintStream(sink, true, java.nio.charset.StandardCharsets.UTF_8);
            System.setOut(stream);
            System.setErr(stream);
            Logger root = Logger.getLogger("");
            for (Handler handler : root.getHandlers()) {
                root.removeHandler(handler);
            }
            SimpleFormatter formatter = new SimpleFormatter();
            Handler handler = new Handler() {
                @Override
                public void publish(LogRecord record) {
                    append("[log " + record.getLevel() + " " + record.getLoggerName() + "] "
                            + formatter.formatMessage(record) + "\n");
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            handler.setLevel(Level.ALL);
            root.addHandler(handler);
        }

        static synchronized void start() {
            current = new StringBuilder();
        }

        static synchronized String stop() {
            String text = current == null ? "" : current.toString();
            current = null;
            return text;
        }

        private static synchronized void append(String text) {
            if (current != null && current.length() < MAX) {
                current.append(text, 0, Math.min(text.length(), MAX - current.length()));
            }
        }
    }
}
