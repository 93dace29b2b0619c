package io.tandem.jepsen.workload;

import java.util.Map;
import java.util.Objects;

/**
 * What a workload's checker found.
 *
 * @param verdict the verdict
 * @param results the checker's result map, written into {@code results.edn}
 * @param summary one line for the console
 */
public record CheckOutcome(Verdict verdict, Map<Object, Object> results, String summary) {
    public CheckOutcome {
        Objects.requireNonNull(verdict, "verdict");
        results = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(results));
        Objects.requireNonNull(summary, "summary");
    }
}
