package io.tandem.sim;

import io.tandem.engine.Protocol;
import java.util.function.Consumer;

/**
 * Shrinks the fault schedule of a failing run: re-runs the same seed with chunks of fault events
 * removed (halves first, then smaller chunks, down to single events) and keeps a removal whenever
 * the run still fails the same way. Every event can be dropped independently (a restart of a live
 * node does nothing), so any subset is a valid schedule. The result is usually a handful of events
 * that explain the failure.
 */
public final class FaultMinimizer {
    /**
     * @param schedule the smallest failing schedule found
     * @param result   the failing run with that schedule
     * @param runs     how many runs the search took
     */
    public record Minimized(FaultSchedule schedule, SimResult result, int runs) {}

    private FaultMinimizer() {}

    public static Minimized minimize(Protocol protocol, SimResult failing, int maxRuns, Consumer<String> progress) {
        if (failing.passed()) throw new IllegalArgumentException("seed " + failing.seed() + " did not fail");
        SimFailure.Kind kind = failing.failure().orElseThrow().kind();
        FaultSchedule schedule = failing.schedule();
        SimResult best = failing;
        int runs = 0;
        int chunk = Math.max(1, schedule.size() / 2);
        while (schedule.size() > 0 && runs < maxRuns) {
            boolean removed = false;
            int i = 0;
            while (i < schedule.size() && runs < maxRuns) {
                FaultSchedule candidate = schedule.without(i, Math.min(schedule.size(), i + chunk));
                SimResult r = Simulation.run(protocol, failing.options().withSchedule(candidate));
                runs++;
                if (r.failure().map(f -> f.kind() == kind).orElse(false)) {
                    schedule = candidate;
                    best = r;
                    removed = true;
                    if (progress != null) progress.accept("minimize: " + schedule.size() + " fault events still fail (" + runs + " runs)");
                } else {
                    i += chunk;
                }
            }
            if (!removed) {
                if (chunk == 1) break;
                chunk = Math.max(1, chunk / 2);
            } else {
                chunk = Math.max(1, Math.min(chunk, schedule.size() / 2));
            }
        }
        return new Minimized(schedule, best, runs);
    }
}
