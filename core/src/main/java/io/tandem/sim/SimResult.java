package io.tandem.sim;

import io.tandem.history.History;
import io.tandem.history.Op;
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
 * @param history      every client invocation and completion, and the faults as nemesis ops (Jepsen format)
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
        History history,
        java.util.SortedMap<String, Long> stats) {

    public boolean passed() {
        return failure.isEmpty();
    }

    public long seed() {
        return options.seed();
    }

    /** Client operations completed (ok, fail or info). */
    public long completedOps() {
        return history.ops().stream().filter(o -> o.isClient() && o.type() != Op.Type.INVOKE).count();
    }
}
