package io.tandem.storage;

import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Collects storage events posted by the disk thread and lets a test wait for one, with a deadline. */
public final class EventRecorder implements Consumer<StorageEvent> {
    public static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private final List<StorageEvent> events = new ArrayList<>();

    @Override
    public synchronized void accept(StorageEvent event) {
        events.add(event);
        notifyAll();
    }

    public synchronized List<StorageEvent> events() {
        return List.copyOf(events);
    }

    public synchronized <T extends StorageEvent> List<T> all(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Waits for the first event of {@code type} matching {@code condition}. */
    public synchronized <T extends StorageEvent> T await(Class<T> type, Predicate<T> condition) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true) {
            for (StorageEvent e : events) {
                if (type.isInstance(e) && condition.test(type.cast(e))) return type.cast(e);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) return fail("no " + type.getSimpleName() + " matching the condition arrived; events: " + events);
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return fail("interrupted");
            }
        }
    }

    public <T extends StorageEvent> T await(Class<T> type) {
        return await(type, e -> true);
    }

    /** Polls {@code condition} (for state only readable on the test's own thread) until it holds. */
    public static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) fail("timed out waiting until " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
