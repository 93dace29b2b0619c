package io.tandem.runtime;

import io.tandem.execution.ExecutorFactory;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the node runtime, with validated defaults.
 *
 * @param requestTimeout       a client request not answered within it fails with a timeout
 * @param maxPendingRequests   back-pressure bound: more pending requests are rejected at once
 * @param maxSessions          client sessions remembered for exactly-once execution
 * @param loopBatch            inbox events handled per loop turn before timers are checked again
 * @param maxResultsPerSession results remembered per session above its low watermark: a bound on
 *                             the commands one client may keep in flight and still retry safely
 * @param executors            builds the node's executor (sequential unless a parallel one is chosen)
 * @param forwardRequests      a request submitted on a member that cannot order it is forwarded to one that
 *                             can (true), or fails with {@link io.tandem.api.NotLeaderException} naming them (false)
 * @param idleStrategy         how the loop waits while a polling engine finds no work ({@link IdleStrategy#BACKOFF})
 * @param quietApply           zero (the default): committed entries wake the execution thread at once. Positive: on a node
 *                             where no request is pending and the engine asked for no result (a Raft follower whose
 *                             clients all talk to the leader), they are queued without waking it and run within this
 *                             long, or sooner with the next entries someone waits for (raft27, {@link ExecutionWake}).
 *                             Only for a state machine whose results nobody but this node's requests consumes (the KV
 *                             server's); an application that reacts to deliveries itself keeps zero. At most 100 ms.
 */
public record RuntimeConfig(Duration requestTimeout, int maxPendingRequests, int maxSessions, int loopBatch,
                            int maxResultsPerSession, ExecutorFactory executors, boolean forwardRequests,
                            IdleStrategy idleStrategy, Duration quietApply) {
    /** The longest {@code quietApply}: a status's applied index and the engine's {@code onApplied} may lag that much. */
    public static final Duration MAX_QUIET_APPLY = Duration.ofMillis(100);

    public static final RuntimeConfig DEFAULTS = new RuntimeConfig(Duration.ofSeconds(10), 10_000, 100_000, 1024,
            ExecutorFactory.Limits.DEFAULTS.maxPerSession(), ExecutorFactory.sequential(), true, IdleStrategy.BACKOFF, Duration.ZERO);

    public RuntimeConfig {
        if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) throw new IllegalArgumentException("requestTimeout must be positive");
        if (maxPendingRequests < 1) throw new IllegalArgumentException("maxPendingRequests must be >= 1, was " + maxPendingRequests);
        if (maxSessions < 1) throw new IllegalArgumentException("maxSessions must be >= 1, was " + maxSessions);
        if (loopBatch < 1) throw new IllegalArgumentException("loopBatch must be >= 1, was " + loopBatch);
        if (maxResultsPerSession < 1) throw new IllegalArgumentException("maxResultsPerSession must be >= 1, was " + maxResultsPerSession);
        Objects.requireNonNull(executors, "executors");
        Objects.requireNonNull(idleStrategy, "idleStrategy");
        if (quietApply == null || quietApply.isNegative() || quietApply.compareTo(MAX_QUIET_APPLY) > 0) {
            throw new IllegalArgumentException("quietApply must be in [0, " + MAX_QUIET_APPLY.toMillis() + " ms], was " + quietApply);
        }
    }

    public RuntimeConfig withRequestTimeout(Duration timeout) {
        return new RuntimeConfig(timeout, maxPendingRequests, maxSessions, loopBatch, maxResultsPerSession, executors, forwardRequests, idleStrategy, quietApply);
    }

    public RuntimeConfig withMaxPendingRequests(int max) {
        return new RuntimeConfig(requestTimeout, max, maxSessions, loopBatch, maxResultsPerSession, executors, forwardRequests, idleStrategy, quietApply);
    }

    public RuntimeConfig withExecutors(ExecutorFactory factory) {
        return new RuntimeConfig(requestTimeout, maxPendingRequests, maxSessions, loopBatch, maxResultsPerSession, factory, forwardRequests, idleStrategy, quietApply);
    }

    public RuntimeConfig withForwardRequests(boolean forward) {
        return new RuntimeConfig(requestTimeout, maxPendingRequests, maxSessions, loopBatch, maxResultsPerSession, executors, forward, idleStrategy, quietApply);
    }

    public RuntimeConfig withIdleStrategy(IdleStrategy strategy) {
        return new RuntimeConfig(requestTimeout, maxPendingRequests, maxSessions, loopBatch, maxResultsPerSession, executors, forwardRequests, strategy, quietApply);
    }

    public RuntimeConfig withQuietApply(Duration delay) {
        return new RuntimeConfig(requestTimeout, maxPendingRequests, maxSessions, loopBatch, maxResultsPerSession, executors, forwardRequests, idleStrategy, delay);
    }

    ExecutorFactory.Limits executorLimits() {
        return new ExecutorFactory.Limits(maxSessions, maxResultsPerSession);
    }
}
