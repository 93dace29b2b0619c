package io.tandem.sim;

import io.tandem.engine.Protocol;
import java.util.List;

/**
 * A protocol that tells the simulator which safety invariants hold over all of its node engines.
 * Any {@link Protocol} can be simulated; this interface only adds protocol-specific checks on top of
 * the built-in ones (state machine safety, in-order execution, linearizability of client histories).
 */
public interface SimulatedProtocol extends Protocol {
    List<SimInvariant> invariants();

    /**
     * The engine a simulated node runs: {@link #createEngine} by default. A protocol may return one
     * that keeps stronger evidence for its {@link #invariants} (hashes over every byte, say), work an
     * engine in production should not pay for; it must behave the same otherwise.
     */
    default io.tandem.engine.Engine createSimulatedEngine(io.tandem.engine.NodeId self, List<io.tandem.engine.NodeId> members) {
        return createEngine(self, members);
    }

    /**
     * This protocol with an engine configuration drawn from {@code random} within the configuration's
     * valid ranges, for a group of {@code nodes} (issue 16: short and long election timeouts, tiny
     * snapshot thresholds and chunks, batching limits, optional features on and off). The same draws
     * give the same configuration, so a seed replays exactly. The default keeps the configuration.
     */
    default SimulatedProtocol withRandomConfig(java.util.random.RandomGenerator random, int nodes) {
        return this;
    }

    /**
     * A fresh admin workload for one run (leader transfers, membership changes), or empty if the
     * engine takes no admin commands.
     */
    default java.util.Optional<SimAdminWorkload> adminWorkload() {
        return java.util.Optional.empty();
    }

    /**
     * Whether the engine keeps client sessions exactly-once with several commands in flight per session
     * (sequences, low watermarks, retries across leader changes). The seed mix ({@code randomConfig})
     * then adds a pipelined client ({@code SimPipelinedClient}) to most seeds; {@code --pipelined N} adds one to any engine.
     */
    default boolean pipelinedSessions() {
        return false;
    }

    /**
     * Whether any member serves {@code ReadPolicy.stale(minIndex)} reads from its state once it applied
     * {@code minIndex}; the client mix then asks a share of its reads that way, at any member.
     */
    default boolean staleReads() {
        return false;
    }

    /**
     * The fault schedule of a run that was given none: by default the generic one ({@link
     * FaultSchedule#generate}), which may cut any member off from any other. A protocol whose fault
     * model is narrower by design (e.g. at most a minority out at a time, {@link MinorityFaultModel})
     * draws its schedules within that model, so that its liveness check stays meaningful. Called on
     * the protocol as configured for the run (after {@link #withRandomConfig}).
     */
    default FaultSchedule faultSchedule(java.util.random.RandomGenerator random, SimOptions options, List<io.tandem.engine.NodeId> members) {
        return FaultSchedule.generate(random, options, members);
    }

    /** A line naming the fault model when it is not the generic one (printed with a failing seed), else empty. */
    default String describeFaultModel() {
        return "";
    }

    /** The engine configuration in one line, printed with a failing seed (empty if there is nothing to say). */
    default String describeConfig() {
        return "";
    }
}
