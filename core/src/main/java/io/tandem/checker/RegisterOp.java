package io.tandem.checker;

import io.tandem.history.Operation;

/**
 * One operation of one partition, ready for the search: what it does to the register (as value ids)
 * and its real-time interval as positions in the history.
 *
 * @param source the history operation, for reports
 * @param kind {@link #READ}, {@link #WRITE}, {@link #CAS} or {@link #CAS_MAYBE}
 * @param a the value read or written, or the value a cas expects
 * @param b the value a cas installs
 * @param callAt position of the invocation
 * @param returnAt position of the {@code :ok} completion, or {@link #NEVER} if the outcome is unknown
 * @param value the EDN value the operation carried, for reports
 */
record RegisterOp(Operation source, int kind, int a, int b, int callAt, int returnAt, Object value) {
    static final int READ = 0;
    static final int WRITE = 1;
    /** A cas that completed {@code :ok}: it must have found {@code a}. */
    static final int CAS = 2;
    /** A cas with an unknown outcome: applied if it ran while the register held {@code a}, else a no-op. */
    static final int CAS_MAYBE = 3;

    /** The return position of an operation whose outcome is unknown: it never returned. */
    static final int NEVER = Integer.MAX_VALUE;

    boolean returns() {
        return returnAt != NEVER;
    }

    /**
     * The register after this operation, or -1 if it cannot take effect in {@code state}. Total for
     * operations with unknown outcomes, which is what lets a deterministic search handle them: an
     * {@code :info} operation that never took effect is indistinguishable from one linearized after
     * everything else, where nothing can observe it.
     */
    int step(int state) {
        return switch (kind) {
            case READ -> state == a ? state : -1;
            case WRITE -> a;
            case CAS -> state == a ? b : -1;
            case CAS_MAYBE -> state == a ? b : state;
            default -> throw new IllegalStateException("unknown kind " + kind);
        };
    }
}
