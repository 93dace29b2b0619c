package io.tandem.bench.peers;

import java.util.ArrayList;
import java.util.List;

/**
 * The order of the throughput trials: interleaved, so run 1 of every configuration and system
 * comes before run 2 of any, and drift of a shared, noisy machine spreads over all systems
 * instead of favouring whichever ran first. Odd runs go through the systems in the given order,
 * even runs in reverse, so no system always follows the same neighbour.
 */
final class Plan {
    /** One throughput measurement: run {@code run} (1-based) of {@code system} under {@code config}. */
    record Trial(int run, Config config, String system) {
        String tag() {
            return "run" + run + "-" + config.id() + "-" + system;
        }
    }

    private Plan() {}

    static List<Trial> trials(int runs, List<Config> configs, List<String> systems) {
        if (runs < 1) throw new IllegalArgumentException("runs must be >= 1, was " + runs);
        List<Trial> out = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            for (Config c : configs) {
                List<String> order = run % 2 == 1 ? systems : systems.reversed();
                for (String s : order) out.add(new Trial(run, c, s));
            }
        }
        return out;
    }
}
