package avrlab.fastpath;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The API of a class as other classes compile against it, read from its class file: what makes a
 * test or another main class compiled against the task state stale when a candidate changes it.
 *
 * <p>Covered: the class's modifiers, superclass, interfaces and generic signature; its nested
 * classes and their modifiers; every non-private field (modifiers, type, generic signature and its
 * compile-time constant value, which javac copies into the classes that read it) and every
 * non-private method (modifiers, descriptor, generic signature, declared exceptions); nested
 * classes that appear or disappear. Private and synthetic members are left out: no other source
 * file can name them. Not covered: annotations and annotation defaults (they change how other
 * code compiles only through annotation processors, which the fast path does not run).
 */
final class Api {
    private Api() {}

    private static final int ACC_PRIVATE = 0x0002;
    private static final int ACC_SUPER_OR_SYNCHRONIZED = 0x0020;
    private static final int ACC_BRIDGE = 0x0040;
    private static final int ACC_NATIVE = 0x0100;
    private static final int ACC_STRICT = 0x0800;
    private static final int ACC_SYNTHETIC = 0x1000;

    /**
     * Why the candidate's classes ({@code compiled}, binary names) change the API that other
     * classes of the task state were compiled against ({@code classes}, the compiled task
     * state), or null when they do not.
     */
    static String changed(Map<String, byte[]> compiled, Path classes) throws IOException {
        List<String> names = new ArrayList<>(compiled.keySet());
        Collections.sort(names);
        for (String name : names) {
            if (isLocal(name)) {
                continue;
            }
            Path before = classFile(classes, name);
            if (!Files.isRegularFile(before)) {
                return name + " is a new class";
            }
            if (!describe(Files.readAllBytes(before)).equals(describe(compiled.get(name)))) {
                return "the API of " + name + " changed";
            }
        }
        // Nested classes of a changed top-level class that the candidate no longer has.
        for (String name : names) {
            if (name.indexOf('$') >= 0) {
                continue;
            }
            Path file = classFile(classes, name);
            Path folder = file.getParent();
            if (folder == null || !Files.isDirectory(folder)) {
                continue;
            }
            String simple = file.getFileName().toString().replace(".class", "");
            try (Stream<Path> entries = Files.list(folder)) {
                for (Path entry : (Iterable<Path>) entries::iterator) {
                    String fileName = entry.getFileName().toString();
                    if (!fileName.startsWith(simple + "$") || !fileName.endsWith(".class")) {
                        continue;
                    }
                    String nested = name + fileName.substring(simple.length(),
                            fileName.length() - ".class".length());
                    if (!isLocal(nested) && !compiled.containsKey(nested)) {
                        return nested + " was removed";
                    }
                }
            }
        }
        return null;
    }

    /** Anonymous and local classes (`Outer$1`, `Outer$1Local`): no other file can name them. */
    static boolean isLocal(String binaryName) {
        int at = binaryName.indexOf('$');
        while (at >= 0) {
            if (at + 1 < binaryName.length() && Character.isDigit(binaryName.charAt(at + 1))) {
                return true;
            }
            at = binaryName.indexOf('$', at + 1);
        }
        return false;
    }

    private static Path classFile(Path classes, String binaryName) {
        return classes.resolve(binaryName.replace('.', '/') + ".class");
    }

    /** A canonical text of a class file's API (see the class comment). */
    static String describe(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        Object[] pool = new Object[count];
        int[] tags = new int[count];
        int[][] refs = new int[count][];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case 1: pool[i] = in.readUTF(); break;
                case 3: pool[i] = "I" + in.readInt(); break;
                case 4: pool[i] = "F" + Integer.toHexString(in.readInt()); break;
                case 5: pool[i] = "J" + in.readLong(); i++; break;
                case 6: pool[i] = "D" + Long.toHexString(in.readLong()); i++; break;
                case 7: case 8: case 16: case 19: case 20:
                    refs[i] = new int[] {in.readUnsignedShort()};
                    break;
                case 9: case 10: case 11: case 12: case 17: case 18:
                    refs[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
                    break;
                case 15:
                    in.readUnsignedByte();
                    refs[i] = new int[] {in.readUnsignedShort()};
                    break;
                default: throw new IOException("unknown constant pool tag " + tag);
            }
        }
        Pool p = new Pool(pool, tags, refs);
        List<String> api = new ArrayList<>();
        int access = in.readUnsignedShort() & ~ACC_SUPER_OR_SYNCHRONIZED;
        String self = p.className(in.readUnsignedShort());
        int superIndex = in.readUnsignedShort();
        StringBuilder head = new StringBuilder("class " + access + " " + self + " extends "
                + (superIndex == 0 ? "-" : p.className(superIndex)));
        int interfaces = in.readUnsignedShort();
        for (int i = 0; i < interfaces; i++) {
            head.append(" ").append(p.className(in.readUnsignedShort()));
        }
        List<String> members = new ArrayList<>();
        for (int kind = 0; kind < 2; kind++) {
            int n = in.readUnsignedShort();
            for (int i = 0; i < n; i++) {
                int flags = in.readUnsignedShort();
                String name = p.utf(in.readUnsignedShort());
                String descriptor = p.utf(in.readUnsignedShort());
                String attributes = attributes(in, p, self);
                boolean hidden = (flags & (ACC_PRIVATE | ACC_SYNTHETIC)) != 0
                        || (kind == 1 && (flags & ACC_BRIDGE) != 0);
                if (hidden) {
                    continue;
                }
                int shown = kind == 0 ? flags
                        : flags & ~(ACC_SUPER_OR_SYNCHRONIZED | ACC_NATIVE | ACC_STRICT);
                members.add((kind == 0 ? "field " : "method ") + shown + " " + name + " "
                        + descriptor + attributes);
            }
        }
        head.append(attributes(in, p, self));
        api.add(head.toString());
        Collections.sort(members);
        api.addAll(members);
        return String.join("\n", api);
    }

    /** The API-relevant attributes, as text; the rest are skipped. */
    private static String attributes(DataInputStream in, Pool p, String self) throws IOException {
        StringBuilder out = new StringBuilder();
        int n = in.readUnsignedShort();
        for (int i = 0; i < n; i++) {
            String name = p.utf(in.readUnsignedShort());
            int length = in.readInt();
            byte[] body = in.readNBytes(length);
            DataInputStream a = new DataInputStream(new ByteArrayInputStream(body));
            switch (name) {
                case "Signature":
                    out.append(" signature=").append(p.utf(a.readUnsignedShort()));
                    break;
                case "ConstantValue":
                    out.append(" constant=").append(p.constant(a.readUnsignedShort()));
                    break;
                case "Exceptions": {
                    List<String> thrown = new ArrayList<>();
                    int count = a.readUnsignedShort();
                    for (int j = 0; j < count; j++) {
                        thrown.add(p.className(a.readUnsignedShort()));
                    }
                    Collections.sort(thrown);
                    out.append(" throws=").append(thrown);
                    break;
                }
                case "InnerClasses": {
                    List<String> nested = new ArrayList<>();
                    int count = a.readUnsignedShort();
                    for (int j = 0; j < count; j++) {
                        int inner = a.readUnsignedShort();
                        a.readUnsignedShort();
                        int simple = a.readUnsignedShort();
                        int flags = a.readUnsignedShort();
                        String innerName = p.className(inner);
                        // This class's own entry and its members' (not other classes' it uses).
                        boolean ours = innerName.equals(self) || innerName.startsWith(self + "$");
                        if (simple != 0 && ours && !isLocal(innerName.replace('/', '.'))) {
                            nested.add(innerName + ":" + flags);
                        }
                    }
                    Collections.sort(nested);
                    // Only this class's own entries count: a class whose attribute names only
                    // classes it uses (`MethodHandles$Lookup`, which javac records for the
                    // string concatenation of release 9 and later) has the API of one without.
                    if (!nested.isEmpty()) {
                        out.append(" nested=").append(nested);
                    }
                    break;
                }
                case "PermittedSubclasses": {
                    List<String> permitted = new ArrayList<>();
                    int count = a.readUnsignedShort();
                    for (int j = 0; j < count; j++) {
                        permitted.add(p.className(a.readUnsignedShort()));
                    }
                    Collections.sort(permitted);
                    out.append(" permits=").append(permitted);
                    break;
                }
                default:
                    break;
            }
        }
        return out.toString();
    }

    /** The constant pool, with the lookups the API needs. */
    private static final class Pool {
        private final Object[] values;
        private final int[] tags;
        private final int[][] refs;

        Pool(Object[] values, int[] tags, int[][] refs) {
            this.values = values;
            this.tags = tags;
            this.refs = refs;
        }

        String utf(int index) {
            return (String) values[index];
        }

        String className(int index) {
            return utf(refs[index][0]);
        }

        String constant(int index) {
            if (tags[index] == 8) {
                return "S" + utf(refs[index][0]);
            }
            return String.valueOf(values[index]);
        }
    }
}
