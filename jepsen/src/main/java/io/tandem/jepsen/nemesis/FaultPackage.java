package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import java.util.random.RandomGenerator;

/**
 * One fault package (Jepsen's {@code nemesis.combined} packages): a pair of nemesis ops that start and
 * stop a fault. The scheduler flip-flops each package on its own staggered schedule, so faults of
 * different packages overlap, and at the end it stops every package (the final generator). Start and
 * stop return the completion's {@code :value} in Jepsen's shapes ({@code [:isolated grudge]},
 * {@code {"n1" :killed}}, ...). Called from the nemesis thread only.
 */
public interface FaultPackage {
    FaultKind kind();

    Keyword startF();

    Keyword stopF();

    /** True between a start and the stop that undoes it. */
    boolean active();

    /** The start op's invocation value: a target spec drawn from the package's targets. */
    Object startValue(RandomGenerator random);

    /** Injects the fault described by {@code value}; returns what was done. */
    Object start(Object value, RandomGenerator random) throws Exception;

    /** The stop op's invocation value ({@code :all}, or nil). */
    default Object stopValue() {
        return null;
    }

    /** Undoes the fault on every node (safe to call when nothing is active); returns what was done. */
    Object stop() throws Exception;

    /**
     * True if the last stop could not be done now for a reason another package will soon lift (the
     * membership change while too few servers run): the scheduler then tries it again shortly instead of
     * after a whole interval.
     */
    default boolean deferred() {
        return false;
    }
}
