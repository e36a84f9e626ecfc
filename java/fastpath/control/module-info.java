/**
 * The fast path's helper: the test JVM's request loop and guard ({@code Main}), the compiler
 * process ({@code Compiler}) and the authenticated result channel. A named module that exports
 * and opens nothing, so that test code in the same JVM (on the class path, in the unnamed module)
 * cannot reflect into it (strong encapsulation, JDK 17). The test JVM is started in class-path
 * mode, as Surefire's fork is, and puts this module into a layer of its own
 * ({@code avrlab.fastpath.runner.Boot}), which starts it through the one service it provides; the
 * compiler process is started as a module ({@code -m}).
 */
module avrlab.fastpath {
    requires java.compiler;

    provides java.lang.Runnable with avrlab.fastpath.Start;
}
