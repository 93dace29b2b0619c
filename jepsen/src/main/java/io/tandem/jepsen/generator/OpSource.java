package io.tandem.jepsen.generator;

import io.tandem.history.Op;
import java.util.random.RandomGenerator;

/**
 * Where client threads get their operations from: the workload's generator. Called concurrently by
 * every client thread; each thread passes its own random generator, split from the run's seed, so
 * the choices of a thread depend on the seed and on what that thread did.
 */
public interface OpSource {
    /**
     * The next operation for {@code thread}, which currently runs as {@code process}, or {@code null} when
     * this source has nothing more for that thread. May block while the source waits for operations in
     * flight (Jepsen's {@code :pending}).
     */
    Invocation next(int thread, long process, RandomGenerator random) throws InterruptedException;

    /** Told how each operation this source handed out ended, so it can react (retry a final read, ...). */
    default void completed(int thread, Invocation invocation, Op.Type outcome) {
    }
}
