package avrlab.fastpath.runner;

import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Starts the test JVM's control code from the class path, as Surefire's fork starts its booter:
 * the JVM is launched in class-path mode (no {@code -m}, so no {@code jdk.module.main} and no
 * module path), and this class puts the control module ({@code control.jar}, beside this class's
 * jar and not on the class path) into a module layer of its own, then starts it through the one
 * service the module provides.
 *
 * <p>Why the control module stays closed to the tests: the layer's module exports and opens
 * nothing, so code in the unnamed module (every test and project class) cannot reflect into it,
 * exactly as when the module was in the boot layer. Only the layer's controller could open it,
 * and this class drops the controller as soon as the layer exists. The service starts the control
 * code once; a second start (a test that found the layer) is refused.
 */
public final class Boot {
    private Boot() {}

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(Boot.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolveSibling("control.jar");
        ModuleLayer parent = ModuleLayer.boot();
        Configuration configuration = parent.configuration()
                .resolve(ModuleFinder.of(jar), ModuleFinder.of(), Set.of("avrlab.fastpath"));
        ModuleLayer layer = parent.defineModulesWithOneLoader(configuration,
                ClassLoader.getSystemClassLoader());
        Runnable start = ServiceLoader.load(layer, Runnable.class).stream()
                .filter(p -> p.type().getModule().getLayer() == layer)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("control.jar provides no start"))
                .get();
        start.run();
    }
}
