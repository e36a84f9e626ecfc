/**
 * The resident validator's control side: the request loop, in-memory compilation, class loaders
 * and the authenticated result channel. A named module that opens nothing and exports only the
 * system class loader's package (the JVM instantiates that loader reflectively; it holds no
 * secret), so that test code in the same JVM cannot reflect into the rest (strong encapsulation,
 * JDK 17).
 */
module avrlab.fastpath {
    requires java.compiler;

    exports avrlab.fastpath.system;
}
