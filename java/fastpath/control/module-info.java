/**
 * The resident validator's control side: the request loop, in-memory compilation, class loaders
 * and the authenticated result channel. A named module that opens and exports nothing, so that
 * test code in the same JVM cannot reflect into it (strong encapsulation, JDK 17).
 */
module avrlab.fastpath {
    requires java.compiler;
}
