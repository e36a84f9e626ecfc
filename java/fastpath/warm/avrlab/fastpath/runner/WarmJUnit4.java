package avrlab.fastpath.runner;

/**
 * The JUnit 4 counterpart of {@link WarmJupiter}, run through the vintage engine where the
 * project has one.
 */
public final class WarmJUnit4 {
    @org.junit.Test
    public void warms() {
        org.junit.Assert.assertEquals(2, 1 + 1);
    }
}
