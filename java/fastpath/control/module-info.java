/**
 * The fast path's helper: the test JVM's request loop and guard ({@code Main}), the compiler
 * process ({@code Compiler}) and the authenticated result channel. A named module that exports
 * and opens nothing, so that test code in the same JVM (on the class path, in the unnamed module)
 * cannot reflect into it (strong encapsulation, JDK 17).
 */
module avrlab.fastpath {
    requires java.compiler;
}
