package io.tandem.bench.peers;

import java.util.Map;

/**
 * CPU per operation: the CPU seconds (user + system, from {@code /proc/PID/stat}) that every JVM of
 * a trial (the replicas and the load driver) used between the start and the end of the measured
 * window, divided by the operations completed in it.
 */
final class CpuAccount {
    /** CPU seconds of the replicas and of the load JVM over the window; NaN where a reading is missing. */
    record Usage(double replicaSeconds, double loadSeconds) {
        double totalSeconds() {
            return replicaSeconds + loadSeconds;
        }

        /** Microseconds of CPU per operation; NaN without operations or readings. */
        double microsPerOp(long ops) {
            double total = totalSeconds();
            if (ops <= 0 || Double.isNaN(total)) return Double.NaN;
            return total * 1e6 / ops;
        }
    }

    private CpuAccount() {}

    /**
     * The CPU each group used between two readings, each reading mapping a pid to its CPU seconds so
     * far. A pid missing from either reading, or with a NaN reading (its process was gone), makes its
     * group's sum NaN rather than silently smaller.
     */
    static Usage between(Map<Long, Double> start, Map<Long, Double> end, java.util.Set<Long> replicaPids, long loadPid) {
        double replicas = 0;
        for (long pid : replicaPids) replicas += delta(start, end, pid);
        return new Usage(replicas, delta(start, end, loadPid));
    }

    private static double delta(Map<Long, Double> start, Map<Long, Double> end, long pid) {
        Double a = start.get(pid), b = end.get(pid);
        if (a == null || b == null || a.isNaN() || b.isNaN()) return Double.NaN;
        if (b < a) throw new IllegalArgumentException("CPU time of pid " + pid + " went backwards: " + a + " -> " + b);
        return b - a;
    }
}
