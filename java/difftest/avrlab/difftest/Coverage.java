package avrlab.difftest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.ICounter;
import org.jacoco.core.analysis.ISourceFileCoverage;
import org.jacoco.core.data.ExecutionDataStore;
import org.jacoco.core.data.SessionInfoStore;
import org.jacoco.core.instr.Instrumenter;
import org.jacoco.core.runtime.IRuntime;
import org.jacoco.core.runtime.LoggerRuntime;
import org.jacoco.core.runtime.RuntimeData;

/**
 * Which of the candidate's changed lines the inputs reached, by JaCoCo: the candidate's compiled
 * classes are instrumented before its class loader sees them (an in-process runtime, no agent, so
 * the fix's and the vulnerable state's classes of the same names are left alone), and once the
 * inputs have run, the execution data is analysed against the uninstrumented classes for line
 * coverage. A changed line counts only where it has code (JaCoCo's line status is not empty): a
 * brace or a comment cannot be reached.
 */
final class Coverage {
    private final IRuntime runtime = new LoggerRuntime();
    private final RuntimeData data = new RuntimeData();
    private final Path classes;
    /** Per source path under `src/main/java` (`a/b/C.java`), the changed line numbers. */
    private final Map<String, Set<Integer>> changed;

    private Coverage(Path classes, Map<String, Set<Integer>> changed) throws Exception {
        this.classes = classes;
        this.changed = changed;
        runtime.startup(data);
    }

    /**
     * Instruments the classes of {@code classes} into {@code instrumented}; the coverage of the
     * changed lines is then read after running code loaded from there.
     */
    static Coverage instrument(Path classes, Path instrumented, Map<String, Set<Integer>> changed) throws Exception {
        Coverage coverage = new Coverage(classes, changed);
        Instrumenter instrumenter = new Instrumenter(coverage.runtime);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
            Path out = instrumented.resolve(classes.relativize(file).toString());
            Files.createDirectories(out.getParent());
            byte[] bytes = Files.readAllBytes(file);
            if (file.toString().endsWith(".class")) {
                bytes = instrumenter.instrument(bytes, file.toString());
            }
            Files.write(out, bytes);
        }
        return coverage;
    }

    /** {@code [lines with code, lines reached]} among the changed lines, so far. */
    long[] reached() throws IOException {
        ExecutionDataStore executions = new ExecutionDataStore();
        data.collect(executions, new SessionInfoStore(), false);
        CoverageBuilder builder = new CoverageBuilder();
        new Analyzer(executions, builder).analyzeAll(classes.toFile());
        long withCode = 0;
        long reached = 0;
        for (ISourceFileCoverage source : builder.getSourceFiles()) {
            String path = source.getPackageName().isEmpty() ? source.getName()
                    : source.getPackageName() + "/" + source.getName();
            for (int line : changed.getOrDefault(path, Set.of())) {
                int status = source.getLine(line).getStatus();
                if (status == ICounter.EMPTY) {
                    continue;
                }
                withCode++;
                if (status == ICounter.FULLY_COVERED || status == ICounter.PARTLY_COVERED) {
                    reached++;
                }
            }
        }
        return new long[] {withCode, reached};
    }
}
