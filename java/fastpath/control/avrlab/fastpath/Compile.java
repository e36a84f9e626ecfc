package avrlab.fastpath;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/** Compiles a candidate's changed source files in memory against the project's classes. */
final class Compile {
    private Compile() {}

    private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();

    /**
     * Fills {@code out} with the class files, or {@code diagnostics} with the errors; compiled
     * against {@code path} only (the caller chooses: the main class path for main sources, as
     * Maven's compiler plug-in does, the test class path for test sources). Annotation
     * processing is off, so no code of the project or the candidate runs here. Returns why the
     * fast path cannot compile this candidate at all, or null.
     */
    static String compile(String[] sources, List<Path> path, int release,
            Map<String, byte[]> out, List<String> diagnostics) throws Exception {
        if (JAVAC == null) {
            return "this JVM has no Java compiler";
        }
        if (sources.length == 0) {
            return null;
        }
        DiagnosticCollector<JavaFileObject> collector = new DiagnosticCollector<>();
        StandardJavaFileManager files =
                JAVAC.getStandardFileManager(collector, Locale.ROOT, StandardCharsets.UTF_8);
        files.setLocationFromPaths(StandardLocation.CLASS_PATH, path);
        files.setLocationFromPaths(StandardLocation.SOURCE_PATH, List.of());
        JavaFileManager memory = new ForwardingJavaFileManager<>(files) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String className,
                    JavaFileObject.Kind kind, FileObject sibling) {
                return new SimpleJavaFileObject(
                        URI.create("mem:///" + className.replace('.', '/') + kind.extension),
                        kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return new ByteArrayOutputStream() {
                            @Override
                            public void close() {
                                out.put(className, toByteArray());
                            }
                        };
                    }
                };
            }
        };
        List<JavaFileObject> units = new ArrayList<>();
        for (JavaFileObject unit : files.getJavaFileObjects(sources)) {
            units.add(unit);
        }
        List<String> options = List.of("--release", Integer.toString(release), "-proc:none",
                "-implicit:none", "-encoding", "UTF-8", "-g", "-nowarn", "-Xlint:none");
        Boolean ok = JAVAC.getTask(null, memory, collector, options, null, units).call();
        for (Diagnostic<? extends JavaFileObject> d : collector.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                String file = d.getSource() == null ? "" : d.getSource().getName();
                diagnostics.add(file + ":[" + d.getLineNumber() + "," + d.getColumnNumber() + "] "
                        + d.getMessage(Locale.ROOT));
            }
        }
        if (!ok && diagnostics.isEmpty()) {
            diagnostics.add("the compiler failed without an error message");
        }
        return null;
    }
}
