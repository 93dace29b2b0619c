package io.tandem.sim;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of one simulated run.
 *
 * @param options      the exact options of the run (replaying them reproduces it)
 * @param protocol     the protocol's name
 * @param failure      empty if every check passed
 * @param traceHash    digest of the full event trace (equal for equal seeds)
 * @param events       events executed
 * @param virtualNanos virtual time at the end of the run
 * @param schedule     the fault schedule that was used (generated or given)
 * @param history      every client invocation and completion
 * @param stats        counters of the run (messages sent, dropped, crashes, ...), in a stable order
 */
public record SimResult(
        SimOptions options,
        String protocol,
        Optional<SimFailure> failure,
        long traceHash,
        long events,
        long virtualNanos,
        FaultSchedule schedule,
        List<SimOp> history,
        java.util.SortedMap<String, Long> stats) {

    public boolean passed() {
        return failure.isEmpty();
    }

    public long seed() {
        return options.seed();
    }

    /** Client operations completed (ok, fail or info). */
    public long completedOps() {
        return history.stream().filter(o -> o.type() != SimOp.Type.INVOKE).count();
    }
}
