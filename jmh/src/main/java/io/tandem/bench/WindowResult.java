package io.tandem.bench;

import io.tandem.bench.report.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one measurement window measured: one scenario (healthy or a fault) in one run of a cluster.
 * Only the window counts; the settling time after the fault was applied is excluded. The timeline
 * (a few seconds before the fault to the end of the window) is kept for the plot.
 *
 * @param run            the repetition (a fresh cluster per cluster size and repetition)
 * @param window         the window's position within its run (0, 1, ...)
 * @param startTick      the tick of the run at whose start the fault was applied
 * @param throughput     completed puts per second
 * @param heapMeanMiB    the leader's mean heap in use, sampled every second (includes garbage not yet collected)
 * @param heapSlopeMiBPerMin least-squares slope of those samples
 * @param liveStartMiB   the leader's live heap (old generation after a full GC, {@code jvm_gc_live_data_size_bytes})
 *                       just before the fault was applied
 * @param liveEndMiB     the same right after the measurement window, before the fault was removed
 * @param resends        the leader's {@code tandem.raft.peer.resends} during the window, summed over peers
 * @param warningsByKind the leader's {@code tandem.slowness.warnings} during the window, by kind
 * @param commitWaitMs   the leader's mean commit quorum wait during the window ({@code tandem.raft.commit.quorum_wait_nanos}):
 *                       the engine's share of the client latency
 * @param cpuPercent     CPU use during the window in % of one core: "leader", "followers" (healthy ones), "slow" and
 *                       "client" (the benchmark's own process, which runs the load)
 * @param leaderChanged  whether the leader or its term changed before the end of the window
 * @param catchUpSeconds how long the slow followers took to apply everything committed when the fault was removed
 * @param failure        why the window failed, or null
 */
record WindowResult(Scenario scenario, int run, int window, int startTick, String leader, List<String> slowNodes, int windowSeconds,
                    long ops, long errors, double throughput, double meanMs, double p50Ms, double p99Ms, double p999Ms, double maxMs,
                    double heapMeanMiB, double heapMaxMiB, double heapSlopeMiBPerMin, double liveStartMiB, double liveEndMiB,
                    double resends, Map<String, Double> warningsByKind, double backgroundMessages, double commitOverdue,
                    double commitWaitMs, Map<String, Double> cpuPercent, boolean leaderChanged, double catchUpSeconds, double loadAverage, String failure,
                    List<Second> timeline) {

    static final double MIB = 1024.0 * 1024.0;

    /** One second of the timeline; {@code second} counts from the moment the fault was applied; {@code endEpochMillis} is when it ended. */
    record Second(int second, long endEpochMillis, String phase, long ops, double meanMs, double p99Ms, double maxMs, long errors, double leaderHeapMiB,
                  double resends, double warnings) {}

    WindowResult {
        slowNodes = List.copyOf(slowNodes);
        warningsByKind = Map.copyOf(warningsByKind);
        cpuPercent = Map.copyOf(cpuPercent);
        timeline = List.copyOf(timeline);
    }

    double warnings() {
        return warningsByKind.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    double leaderCpuPercent() {
        return cpuPercent.getOrDefault("leader", Double.NaN);
    }

    double liveGrowthMiB() {
        return liveEndMiB - liveStartMiB;
    }

    boolean failed() {
        return failure != null;
    }

    /** A window that produced no measurements. */
    static WindowResult failed(Scenario scenario, int run, int window, String failure, double loadAverage) {
        double n = Double.NaN;
        return new WindowResult(scenario, run, window, -1, null, List.of(), 0, 0, 0, n, n, n, n, n, n, n, n, n, n, n, n, Map.of(), n, n, n, Map.of(), false,
                n, loadAverage, failure, List.of());
    }

    /**
     * Where a window lies on the run's tick axis: the fault is applied at the start of tick
     * {@code start}, ticks {@code [start, start+settle)} let it take hold, ticks
     * {@code [start+settle, start+settle+measure)} are measured; {@code before} earlier ticks are
     * kept for the plot.
     */
    record Span(int start, int settle, int measure, int before) {
        Span {
            if (settle < 1 || measure < 1) throw new IllegalArgumentException("settle and measure need at least 1 s each");
            if (before < 0 || before > start) throw new IllegalArgumentException("cannot keep " + before + " ticks before tick " + start);
        }

        int windowStart() {
            return start + settle;
        }

        int end() {
            return start + settle + measure;
        }

        String phaseOf(int tick) {
            if (tick < start) return "before";
            if (tick < windowStart()) return "settle";
            return tick < end() ? "measure" : "after";
        }
    }

    /** The client-side and leader-side numbers of a window, from the ticks. */
    record Measured(long ops, long errors, double throughput, double meanMs, double p50Ms, double p99Ms, double p999Ms, double maxMs,
                    double heapMeanMiB, double heapMaxMiB, double heapSlopeMiBPerMin, double resends, Map<String, Double> warningsByKind,
                    double backgroundMessages, double commitOverdue, double commitWaitMs, List<Second> timeline) {}

    /**
     * Summarizes the ticks of a window: latencies merged over the measured ticks; counters as the
     * difference between the scrape at the end of the last measured tick and the one at the end of
     * the tick just before the window (NaN if either scrape failed).
     */
    static Measured measure(List<TickSampler.Tick> ticks, Span span) {
        if (ticks.size() < span.end()) throw new IllegalArgumentException("need " + span.end() + " ticks, have " + ticks.size());
        Histogram merged = new Histogram(3);
        List<Double> heapT = new ArrayList<>();
        List<Double> heap = new ArrayList<>();
        for (int i = span.windowStart(); i < span.end(); i++) {
            TickSampler.Tick t = ticks.get(i);
            merged.add(t.latencies());
            if (t.leader() != null) {
                heapT.add((double) i);
                heap.add(t.leader().heapUsedBytes() / MIB);
            }
        }
        TickSampler.Tick before = ticks.get(span.windowStart() - 1);
        TickSampler.Tick last = ticks.get(span.end() - 1);
        boolean counters = before.leader() != null && last.leader() != null;
        Map<String, Double> warnings = new TreeMap<>();
        if (counters) {
            last.leader().warningsByKind().forEach((kind, n) -> {
                double delta = n - before.leader().warningsByKind().getOrDefault(kind, 0.0);
                if (delta != 0) warnings.put(kind, delta);
            });
        }
        List<Second> timeline = new ArrayList<>();
        for (int i = span.start() - span.before(); i < span.end(); i++) {
            TickSampler.Tick t = ticks.get(i);
            long errorsBefore = i == 0 ? 0 : ticks.get(i - 1).errorsSoFar();
            timeline.add(second(t, i - span.start(), span.phaseOf(i), t.errorsSoFar() - errorsBefore));
        }
        long ops = merged.getTotalCount();
        boolean any = ops > 0;
        double[] hx = heapT.stream().mapToDouble(Double::doubleValue).toArray();
        double[] hy = heap.stream().mapToDouble(Double::doubleValue).toArray();
        return new Measured(ops, last.errorsSoFar() - before.errorsSoFar(), ops / (double) span.measure(),
                any ? merged.getMean() / 1000 : Double.NaN, any ? merged.getValueAtPercentile(50) / 1000.0 : Double.NaN,
                any ? merged.getValueAtPercentile(99) / 1000.0 : Double.NaN, any ? merged.getValueAtPercentile(99.9) / 1000.0 : Double.NaN,
                any ? merged.getMaxValue() / 1000.0 : Double.NaN,
                Stats.mean(hy), Stats.max(hy), Stats.slope(hx, hy) * 60,
                counters ? last.leader().resends() - before.leader().resends() : Double.NaN, warnings,
                counters ? last.leader().backgroundMessages() - before.leader().backgroundMessages() : Double.NaN,
                counters ? last.leader().commitOverdue() - before.leader().commitOverdue() : Double.NaN,
                counters ? meanMillis(last.leader().quorumWaitNanos() - before.leader().quorumWaitNanos(),
                        last.leader().quorumWaits() - before.leader().quorumWaits()) : Double.NaN, timeline);
    }

    private static double meanMillis(double sumNanos, double count) {
        return count > 0 ? sumNanos / count / 1e6 : Double.NaN;
    }

    /** One tick as a timeline second (latencies in ms). */
    static Second second(TickSampler.Tick t, int second, String phase, long errors) {
        Histogram h = t.latencies();
        boolean any = h.getTotalCount() > 0;
        return new Second(second, t.endEpochMillis(), phase, h.getTotalCount(), any ? h.getMean() / 1000 : Double.NaN,
                any ? h.getValueAtPercentile(99) / 1000.0 : Double.NaN, any ? h.getMaxValue() / 1000.0 : Double.NaN, errors,
                t.leader() == null ? Double.NaN : t.leader().heapUsedBytes() / MIB,
                t.leader() == null ? Double.NaN : t.leader().resends(), t.leader() == null ? Double.NaN : t.leader().warnings());
    }
}
