package avrlab.difftest;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How to make one input value in any version's class loader. The generator decides a recipe once;
 * each version then makes its own value from it, so project classes (records, enums) are that
 * version's own, and mutable values (lists, arrays, streams) are fresh for every call.
 */
final class Recipe implements java.io.Serializable {
    enum Kind { NULL, VALUE, CHARSET, ENUM, NEW, LIST, SET, SORTED_SET, MAP, SORTED_MAP, ARRAY, BYTES, STREAM, READER, PATH, FILE, CLASS, PROXY }

    final Kind kind;
    /** The immutable JDK value (VALUE), the character set's name (CHARSET), the enum constant's name (ENUM), the bytes (BYTES, STREAM), the text (READER), the scratch-relative path (PATH, FILE). */
    final Object value;
    /** The class to load: the constructed, enum, array component, class or interface type. */
    final String type;
    /** The constructor's parameter types (NEW), or the proxied methods' names (PROXY). */
    final List<String> names;
    final List<Recipe> parts;

    private Recipe(Kind kind, Object value, String type, List<String> names, List<Recipe> parts) {
        this.kind = kind;
        this.value = value;
        this.type = type;
        this.names = names;
        this.parts = parts;
    }

    static Recipe nothing() {
        return new Recipe(Kind.NULL, null, null, List.of(), List.of());
    }

    static Recipe value(Object value) {
        return new Recipe(Kind.VALUE, value, null, List.of(), List.of());
    }

    static Recipe of(Kind kind, Object value, String type) {
        return new Recipe(kind, value, type, List.of(), List.of());
    }

    static Recipe composite(Kind kind, String type, List<String> names, List<Recipe> parts) {
        return new Recipe(kind, null, type, names, parts);
    }

    /** This recipe with other parts (a shrunk collection, constructor or proxy). */
    Recipe withParts(List<Recipe> parts) {
        return new Recipe(kind, value, type, names, List.copyOf(parts));
    }

    /** This recipe with another value (a shrunk string, number or byte string). */
    Recipe withValue(Object value) {
        return new Recipe(kind, value, type, names, parts);
    }

    /** Whether making this value touches the scratch folder. */
    boolean usesScratch() {
        if (kind == Kind.PATH || kind == Kind.FILE) {
            return true;
        }
        for (Recipe part : parts) {
            if (part.usesScratch()) {
                return true;
            }
        }
        return false;
    }

    /** Thrown when a recipe cannot be made in a version (a class or constructor it lacks). */
    static final class Unmakeable extends Exception {
        Unmakeable(String message) {
            super(message);
        }
    }

    Object make(ClassLoader loader, Path scratch) throws Throwable {
        switch (kind) {
            case NULL:
                return null;
            case VALUE:
                return value;
            case CHARSET:
                // By name: a character set is not serializable, and a recipe travels to the candidate's JVM.
                return java.nio.charset.Charset.forName((String) value);
            case ENUM: {
                Class<?> type = load(this.type, loader);
                for (Object constant : type.getEnumConstants()) {
                    if (((Enum<?>) constant).name().equals(value)) {
                        return constant;
                    }
                }
                throw new Unmakeable(this.type + " has no constant " + value);
            }
            case NEW: {
                Class<?> type = load(this.type, loader);
                Class<?>[] params = new Class<?>[names.size()];
                for (int i = 0; i < params.length; i++) {
                    params[i] = load(names.get(i), loader);
                }
                Constructor<?> constructor;
                try {
                    constructor = type.getDeclaredConstructor(params);
                } catch (NoSuchMethodException e) {
                    throw new Unmakeable(this.type + " has no constructor " + names);
                }
                constructor.setAccessible(true);
                Object[] args = makeAll(loader, scratch);
                try {
                    return constructor.newInstance(args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
            case LIST:
                return new ArrayList<>(Arrays.asList(makeAll(loader, scratch)));
            case SET: {
                LinkedHashSet<Object> set = new LinkedHashSet<>();
                for (Recipe part : parts) {
                    set.add(part.make(loader, scratch));
                }
                return set;
            }
            case SORTED_SET: {
                TreeSet<Object> set = new TreeSet<>();
                for (Recipe part : parts) {
                    set.add(part.make(loader, scratch));
                }
                return set;
            }
            case MAP:
            case SORTED_MAP: {
                Map<Object, Object> map = kind == Kind.MAP ? new LinkedHashMap<>() : new TreeMap<>();
                for (int i = 0; i + 1 < parts.size(); i += 2) {
                    map.put(parts.get(i).make(loader, scratch), parts.get(i + 1).make(loader, scratch));
                }
                return map;
            }
            case ARRAY: {
                Object array = Array.newInstance(load(type, loader), parts.size());
                for (int i = 0; i < parts.size(); i++) {
                    Array.set(array, i, parts.get(i).make(loader, scratch));
                }
                return array;
            }
            case BYTES:
                return ((byte[]) value).clone();
            case STREAM:
                return new ByteArrayInputStream((byte[]) value);
            case READER:
                return new StringReader((String) value);
            case PATH:
                return scratch.resolve((String) value);
            case FILE:
                return scratch.resolve((String) value).toFile();
            case CLASS:
                return load(type, loader);
            case PROXY: {
                Class<?> type = load(this.type, loader);
                Map<String, Object> answers = new LinkedHashMap<>();
                for (int i = 0; i < names.size(); i++) {
                    answers.put(names.get(i), parts.get(i).make(loader, scratch));
                }
                return Proxy.newProxyInstance(loader, new Class<?>[] {type}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "toString":
                            return "proxy " + this.type;
                        case "hashCode":
                            return 0;
                        case "equals":
                            return proxy == args[0];
                        default:
                            return answers.get(method.getName());
                    }
                });
            }
            default:
                throw new IllegalStateException(kind.toString());
        }
    }

    private Object[] makeAll(ClassLoader loader, Path scratch) throws Throwable {
        Object[] out = new Object[parts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = parts.get(i).make(loader, scratch);
        }
        return out;
    }

    static Class<?> load(String name, ClassLoader loader) throws Unmakeable {
        switch (name) {
            case "boolean": return boolean.class;
            case "byte": return byte.class;
            case "short": return short.class;
            case "char": return char.class;
            case "int": return int.class;
            case "long": return long.class;
            case "float": return float.class;
            case "double": return double.class;
            default:
                try {
                    return Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new Unmakeable("no class " + name);
                }
        }
    }

    /** The recipe as an auditor reads it: Java-like, deterministic. */
    String show() {
        StringBuilder out = new StringBuilder();
        show(out);
        return out.toString();
    }

    private void show(StringBuilder out) {
        switch (kind) {
            case NULL -> out.append("null");
            case VALUE -> out.append(Observe.literal(value));
            case CHARSET -> out.append("Charset.forName(").append(Observe.literal(value)).append(')');
            case ENUM -> out.append(simple(type)).append('.').append(value);
            case NEW -> {
                out.append("new ").append(simple(type)).append('(');
                join(out, parts);
                out.append(')');
            }
            case LIST, SET, SORTED_SET -> {
                out.append(kind == Kind.LIST ? "List.of(" : "Set.of(");
                join(out, parts);
                out.append(')');
            }
            case MAP, SORTED_MAP -> {
                out.append("Map.of(");
                join(out, parts);
                out.append(')');
            }
            case ARRAY -> {
                out.append("new ").append(simple(type)).append("[] {");
                join(out, parts);
                out.append('}');
            }
            case BYTES -> out.append("bytes(").append(Observe.hex((byte[]) value)).append(')');
            case STREAM -> out.append("stream(").append(Observe.hex((byte[]) value)).append(')');
            case READER -> out.append("reader(").append(Observe.literal(value)).append(')');
            case PATH -> out.append("scratch.resolve(").append(Observe.literal(value)).append(')');
            case FILE -> out.append("scratch.resolve(").append(Observe.literal(value)).append(").toFile()");
            case CLASS -> out.append(simple(type)).append(".class");
            case PROXY -> {
                out.append(simple(type)).append(" answering {");
                for (int i = 0; i < names.size(); i++) {
                    out.append(i == 0 ? "" : ", ").append(names.get(i)).append("() = ");
                    parts.get(i).show(out);
                }
                out.append('}');
            }
            default -> out.append(kind);
        }
    }

    private static void join(StringBuilder out, List<Recipe> parts) {
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                out.append(", ");
            }
            parts.get(i).show(out);
        }
    }

    static String simple(String name) {
        int dot = name.lastIndexOf('.');
        return name.substring(dot + 1).replace('$', '.');
    }
}
