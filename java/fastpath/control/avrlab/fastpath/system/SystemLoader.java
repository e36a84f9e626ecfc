package avrlab.fastpath.system;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The resident validator's system class loader ({@code -Djava.system.class.loader}). Surefire's
 * fork has the project and its dependencies on the system class path, and some projects look
 * classes up there ({@code ServiceLoader.load(type, ClassLoader.getSystemClassLoader())} in
 * commons-compress); here the system class path holds only the helper, so after the helper and
 * the JDK this loader asks the loader of the candidate whose tests run now.
 *
 * <p>The JVM remembers this loader as the initiating loader of every class it returns, so a class
 * found through the candidate's loader would be served to the next candidate too: each such load
 * is counted, and the helper replaces the JVM after a candidate that made one.
 */
public final class SystemLoader extends ClassLoader {
    static {
        ClassLoader.registerAsParallelCapable();
    }

    private static volatile Control control;

    public SystemLoader(ClassLoader parent) {
        super("avrlab-system", parent);
    }

    /**
     * Gives this loader its source of project classes. Only the first call (the helper's, before
     * any project code is loaded) gets the control; any later one gets null.
     */
    public static synchronized Control control(Supplier<ClassLoader> source) {
        if (control != null) {
            return null;
        }
        control = new Control(source);
        return control;
    }

    /** The helper's handle: where project classes come from, and how many came through here. */
    public static final class Control {
        private final Supplier<ClassLoader> source;
        private final AtomicInteger delegated = new AtomicInteger();

        private Control(Supplier<ClassLoader> source) {
            this.source = source;
        }

        /** How many classes the candidate's loader gave through this loader since last asked. */
        public int takeDelegated() {
            return delegated.getAndSet(0);
        }
    }

    private static ClassLoader project() {
        Control c = control;
        return c == null ? null : c.source.get();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            try {
                return getParent().loadClass(name);
            } catch (ClassNotFoundException notOurs) {
                // Neither the JDK's nor the helper's: the project's, if a candidate runs.
            }
            ClassLoader project = project();
            if (project == null) {
                throw new ClassNotFoundException(name);
            }
            Class<?> found = project.loadClass(name);
            control.delegated.incrementAndGet();
            return found;
        }
    }

    @Override
    protected URL findResource(String name) {
        ClassLoader project = project();
        return project == null ? null : project.getResource(name);
    }

    @Override
    protected Enumeration<URL> findResources(String name) throws IOException {
        ClassLoader project = project();
        return project == null ? Collections.emptyEnumeration() : project.getResources(name);
    }
}
