package io.tandem.jmh.psmr;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The pass/fail split of Mode L reads the members' Prometheus text: this checks it against the text
 * Micrometer's Prometheus registry really writes for the runtime's and the executor's meter names
 * (a renamed meter or a changed exposition would otherwise give zeros, not an error).
 */
class EndToEndBenchTest {
    @Test
    void readsTheRuntimesWriteAndFailMetersAndTheExecutorsCheckCounters() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter.builder("tandem.client.completed").tag("kind", "write").tag("node", "n1").register(registry).increment(100);
        Counter.builder("tandem.client.completed").tag("kind", "read").tag("node", "n1").register(registry).increment(7);
        Counter.builder("tandem.client.completed").tag("kind", "write-after-failed-check").tag("node", "n1").register(registry).increment(3);
        Counter.builder("tandem.client.latency.sum").baseUnit("seconds").tag("kind", "write").tag("node", "n1").register(registry).increment(0.25);
        Counter.builder("tandem.client.latency.sum").baseUnit("seconds").tag("kind", "read").tag("node", "n1").register(registry).increment(9);
        Counter.builder("tandem.client.latency.sum").baseUnit("seconds").tag("kind", "write-after-failed-check").tag("node", "n1").register(registry).increment(0.015);
        FunctionCounter.builder("tandem.execution.checked", this, x -> 40).tag("node", "n1").register(registry);
        FunctionCounter.builder("tandem.execution.failed", this, x -> 2).tag("node", "n1").register(registry);

        EndToEndBench.Counts c = EndToEndBench.parse(registry.scrape());

        assertThat(c.writes()).isEqualTo(100);
        assertThat(c.failedWrites()).isEqualTo(3);
        assertThat(c.writeSeconds()).isEqualTo(0.25);
        assertThat(c.failedSeconds()).isEqualTo(0.015);
        assertThat(c.checked()).isEqualTo(40);
        assertThat(c.failed()).isEqualTo(2);
        assertThat(c.plus(c).writes()).isEqualTo(200);
    }
}
