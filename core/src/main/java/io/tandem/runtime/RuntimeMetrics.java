package io.tandem.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/** The runtime's own meters (DESIGN §9): client outcomes and latency, execution, loop health. */
final class RuntimeMetrics {
    final Counter applied;
    final Counter duplicates;
    final Counter stale;
    final Counter forwarded;
    final Counter forwardsServed;
    final Counter rejectedNotLeader;
    final Counter rejectedOverloaded;
    final Counter rejectedUnavailable;
    final Counter timedOut;
    final Counter sendsDropped;
    final Counter engineFailures;
    final Timer writeLatency;
    final Timer readLatency;

    RuntimeMetrics(MeterRegistry registry, Tags tags) {
        applied = Counter.builder("tandem.exec.applied").tags(tags).register(registry);
        duplicates = Counter.builder("tandem.exec.duplicates").description("retried commands answered from the session table").tags(tags).register(registry);
        stale = Counter.builder("tandem.exec.stale").description("copies of commands below their session's low watermark, not applied").tags(tags).register(registry);
        forwarded = Counter.builder("tandem.client.forwarded").description("requests sent on to a member that can order them").tags(tags).register(registry);
        forwardsServed = Counter.builder("tandem.client.forwards.served").description("requests other members forwarded here").tags(tags).register(registry);
        rejectedNotLeader = Counter.builder("tandem.client.rejected").tags(tags.and("reason", "not-leader")).register(registry);
        rejectedOverloaded = Counter.builder("tandem.client.rejected").tags(tags.and("reason", "overloaded")).register(registry);
        rejectedUnavailable = Counter.builder("tandem.client.rejected").tags(tags.and("reason", "unavailable")).register(registry);
        timedOut = Counter.builder("tandem.client.timeouts").tags(tags).register(registry);
        sendsDropped = Counter.builder("tandem.runtime.sends.dropped").description("messages the transport refused at once").tags(tags).register(registry);
        engineFailures = Counter.builder("tandem.runtime.engine.failures").tags(tags).register(registry);
        writeLatency = Timer.builder("tandem.client.latency").tags(tags.and("kind", "write")).publishPercentiles(0.5, 0.99, 0.999).register(registry);
        readLatency = Timer.builder("tandem.client.latency").tags(tags.and("kind", "read")).publishPercentiles(0.5, 0.99, 0.999).register(registry);
    }

    void recordLatency(PendingRequests.Pending p) {
        (p.read() ? readLatency : writeLatency).record(System.nanoTime() - p.startNanos(), TimeUnit.NANOSECONDS);
    }
}
