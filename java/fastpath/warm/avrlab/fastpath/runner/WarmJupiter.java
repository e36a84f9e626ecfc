package avrlab.fastpath.runner;

/**
 * A test of the helper's own that a pooled test JVM runs before its candidate arrives, so that
 * the JUnit Jupiter engine's execution path is loaded and compiled by then. It is in the helper's
 * runner jar, never under the project's test classes, so no selection of the project finds it.
 */
public final class WarmJupiter {
    @org.junit.jupiter.api.Test
    void warms() {
        org.junit.jupiter.api.Assertions.assertEquals(2, 1 + 1);
    }
}
