package io.tandem.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MicrometerMetersTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicLong clock = new AtomicLong();
    private final MicrometerMeters meters = new MicrometerMeters(registry, NodeId.of("n1"), "raft", clock::get);

    @Test
    void metersCarryNodeAndProtocolTagsAndAreCached() {
        Meters.Counter c = meters.counter("tandem.raft.resends", "peer", "n2");
        c.increment();
        c.increment(2);
        assertThat(meters.counter("tandem.raft.resends", "peer", "n2")).isSameAs(c);
        assertThat(registry.get("tandem.raft.resends").tag("node", "n1").tag("protocol", "raft").tag("peer", "n2").counter().count()).isEqualTo(3.0);

        Meters.Gauge g = meters.gauge("tandem.raft.outbox.depth", "peer", "n3");
        g.set(17);
        assertThat(registry.get("tandem.raft.outbox.depth").tag("peer", "n3").gauge().value()).isEqualTo(17.0);

        meters.distribution("tandem.raft.batch.size").record(5);
        assertThat(registry.get("tandem.raft.batch.size").summary().count()).isEqualTo(1);
    }

    @Test
    void everySlownessWarningIsCountedEvenWhenTheLogLineIsRateLimited() {
        for (int i = 0; i < 5; i++) meters.slownessWarning("outbox-growing", NodeId.of("n2"), "depth " + i);
        clock.addAndGet(MicrometerMeters.WARNING_INTERVAL_NANOS);
        meters.slownessWarning("outbox-growing", NodeId.of("n2"), "again");
        assertThat(registry.get("tandem.slowness.warnings").tag("kind", "outbox-growing").tag("peer", "n2").counter().count()).isEqualTo(6.0);
    }

    @Test
    void oddTagListsAreRejected() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> meters.counter("x", "peer")).hasMessageContaining("key/value pairs");
    }
}
