package io.tandem.bench.peers;

import io.tandem.bench.SteadyState;
import java.util.List;

/** What the peer benchmark measured: one record per throughput trial and per slowdown scenario. */
final class Results {
    private Results() {}

    /**
     * One throughput trial; {@code failed} trials carry the reason (with log tails) in {@code note}. {@code warmupSeconds}
     * is the load seconds discarded before the measured window (-1: unknown), {@code jitSeconds} the CPU seconds the JIT
     * compiler threads of every JVM of the trial used in the measured window (NaN: unknown).
     */
    record Trial(Plan.Trial trial, boolean failed, String note, Timeline.Window window, CpuAccount.Usage cpu, int leaderChanges,
                 double loadAverage, int warmupSeconds, double jitSeconds) {
        Trial(Plan.Trial trial, boolean failed, String note, Timeline.Window window, CpuAccount.Usage cpu, int leaderChanges, double loadAverage) {
            this(trial, failed, note, window, cpu, leaderChanges, loadAverage, -1, Double.NaN);
        }

        static Trial failure(Plan.Trial trial, String note, double loadAverage) {
            return new Trial(trial, true, note, null, new CpuAccount.Usage(Double.NaN, Double.NaN), 0, loadAverage);
        }

        /** The JIT compiler threads' share (percent) of the measured window's CPU; NaN if unknown. */
        double jitPercent() {
            return SteadyState.jitPercent(jitSeconds, cpu.totalSeconds());
        }

        double cpuMicrosPerOp() {
            return window == null ? Double.NaN : cpu.microsPerOp(window.ops());
        }
    }

    /**
     * One phase of a slowdown scenario, measured: the replica slowed (-1: none), the throughput and
     * p99 as a percentage of the neighbouring healthy phases (NaN for healthy phases), leader changes.
     */
    record Phase(Slowdown.Phase phase, int targetReplica, Timeline.Window window, double throughputPercent, double p99Percent, int leaderChanges,
                 String note) {}

    /** A slowdown scenario of one system and fault kind, with its per-second latency for plotting. */
    record Scenario(String system, Slowdown.Kind kind, String fault, Config config, boolean failed, boolean skipped, String note,
                    List<Phase> phases, double[] p99Micros, double[] meanMicros, List<Leadership.Change> leaderChanges, double loadAverage) {
        static Scenario skipped(String system, Slowdown.Kind kind, String fault, Config config, String why) {
            return new Scenario(system, kind, fault, config, false, true, why, List.of(), new double[0], new double[0], List.of(), Double.NaN);
        }

        static Scenario failure(String system, Slowdown.Kind kind, String fault, Config config, String why, double loadAverage) {
            return new Scenario(system, kind, fault, config, true, false, why, List.of(), new double[0], new double[0], List.of(), loadAverage);
        }
    }
}
