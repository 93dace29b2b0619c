package io.tandem.sim;

import io.tandem.engine.Protocol;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/** Runs many seeds of one protocol and reports failures in a form that replays exactly. */
public final class SimRunner {
    private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_./:=,+-]+");

    /**
     * @param seeds        seeds run
     * @param failures     the failing runs, in seed order
     * @param ops          client operations completed over all runs
     * @param events       events executed over all runs
     * @param virtualNanos virtual time simulated over all runs
     * @param wallNanos    wall-clock time the runs took
     */
    public record Summary(String protocol, int seeds, List<SimResult> failures, long ops, long events, long virtualNanos, long wallNanos) {
        public double seedsPerSecond() {
            return wallNanos == 0 ? 0 : seeds * 1e9 / wallNanos;
        }

        /** The one summary line: {@code seeds=N failures=F ...}. */
        public String line() {
            return String.format(java.util.Locale.ROOT, "seeds=%d failures=%d protocol=%s ops=%d events=%d virtual=%.1fs wall=%.2fs seeds/s=%.1f",
                    seeds, failures.size(), protocol, ops, events, virtualNanos / 1e9, wallNanos / 1e9, seedsPerSecond());
        }
    }

    private SimRunner() {}

    /**
     * Runs {@code seeds} with {@code base} options (its own seed is replaced by each), calling
     * {@code onResult} after each run. Stops early after {@code maxFailures} failures.
     */
    public static Summary run(Protocol protocol, SimOptions base, List<Long> seeds, int maxFailures, Consumer<SimResult> onResult) {
        long start = System.nanoTime(); // wall time for the report only; runs never read it
        List<SimResult> failures = new ArrayList<>();
        long ops = 0;
        long events = 0;
        long virtual = 0;
        int ran = 0;
        for (long seed : seeds) {
            SimResult r = Simulation.run(protocol, base.withSeed(seed));
            ran++;
            ops += r.completedOps();
            events += r.events();
            virtual += r.virtualNanos();
            if (!r.passed()) failures.add(r);
            if (onResult != null) onResult.accept(r);
            if (failures.size() >= maxFailures) break;
        }
        return new Summary(protocol.name(), ran, List.copyOf(failures), ops, events, virtual, System.nanoTime() - start);
    }

    /** The {@code ./tandem sim} command line that replays {@code options} exactly. */
    public static String replayCommand(String protocol, SimOptions options) {
        StringBuilder b = new StringBuilder("./tandem sim --protocol ").append(protocol).append(" --seeds 1");
        for (String arg : options.toCliArgs()) b.append(' ').append(shellQuote(arg));
        return b.toString();
    }

    static String shellQuote(String arg) {
        return SHELL_SAFE.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    /** A multi-line report of a failing run: what failed, the seed, every option, node states, how to replay. */
    public static String describeFailure(SimResult r) {
        SimFailure f = r.failure().orElseThrow();
        StringBuilder b = new StringBuilder();
        b.append("FAILED seed=").append(r.seed()).append(" protocol=").append(r.protocol()).append('\n');
        b.append("  ").append(f.summary().replace("\n", "\n    ")).append('\n');
        b.append("  options: ").append(r.options().describe()).append('\n');
        b.append("  fault schedule (").append(r.schedule().size()).append(" events): ").append(r.schedule().format()).append('\n');
        for (String s : f.nodeStatus()) b.append("  | ").append(s).append('\n');
        b.append("  replay: ").append(replayCommand(r.protocol(), r.options())).append('\n');
        b.append("  replay in a test: -Dtandem.sim.seed=").append(r.seed());
        return b.toString();
    }
}
