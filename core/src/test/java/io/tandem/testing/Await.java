package io.tandem.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline (no fixed sleeps in tests). */
public final class Await {
    private Await() {}

    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> describe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) throw new AssertionError("not true within " + timeout + ": " + describe.get());
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
        }
    }

    public static void until(Duration timeout, BooleanSupplier condition) {
        until(timeout, condition, () -> "condition");
    }
}
