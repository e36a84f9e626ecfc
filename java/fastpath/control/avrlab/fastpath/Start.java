package avrlab.fastpath;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The test JVM's entry when the class-path launcher ({@code avrlab.fastpath.runner.Boot}) starts
 * this module from a layer of its own: the module's one service, which runs {@link Main} once.
 * Anyone who finds the layer may load the service again; a second start is refused.
 */
public final class Start implements Runnable {
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    @Override
    public void run() {
        if (!STARTED.compareAndSet(false, true)) {
            throw new IllegalStateException("the test JVM's control code runs once");
        }
        try {
            Main.main(new String[0]);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
