package io.tandem.execution;

import io.tandem.statemachine.StateMachine;

/**
 * Builds the executor of one node. The sequential executor is {@link #sequential()}; the parallel
 * executors of P-SMR plug in here. The factory is shared by every node of a cluster (and by the
 * simulator), so it must not keep per-node state itself.
 */
@FunctionalInterface
public interface ExecutorFactory {
    Executor create(StateMachine stateMachine, ExecutionListener listener, Limits limits);

    /**
     * @param maxSessions   client sessions remembered for exactly-once execution
     * @param maxPerSession results remembered per session above its low watermark (commands in flight per client)
     */
    record Limits(int maxSessions, int maxPerSession) {
        public static final Limits DEFAULTS = new Limits(100_000, 1_024);

        public Limits {
            if (maxSessions < 1) throw new IllegalArgumentException("maxSessions must be >= 1, was " + maxSessions);
            if (maxPerSession < 1) throw new IllegalArgumentException("maxPerSession must be >= 1, was " + maxPerSession);
        }
    }

    /** Applies one command at a time in index order, on the calling thread. */
    static ExecutorFactory sequential() {
        return SequentialExecutor::new;
    }
}
