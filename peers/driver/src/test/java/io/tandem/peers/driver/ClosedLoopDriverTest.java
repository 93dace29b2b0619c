package io.tandem.peers.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ClosedLoopDriverTest {

    /** A client that completes every put at once and fails every third one. */
    static final class CountingClient implements PeerClient {
        final Map<String, byte[]> map = new ConcurrentHashMap<>();
        final AtomicInteger puts = new AtomicInteger();
        final AtomicInteger maxOutstanding = new AtomicInteger();
        final AtomicInteger outstanding = new AtomicInteger();

        @Override
        public CompletableFuture<Void> put(byte[] key, byte[] value) {
            int n = puts.incrementAndGet();
            maxOutstanding.accumulateAndGet(outstanding.incrementAndGet(), Math::max);
            map.put(new String(key), value.clone());
            outstanding.decrementAndGet();
            return n % 3 == 0 ? CompletableFuture.failedFuture(new IllegalStateException("no leader")) : CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {}
    }

    @Test
    void keysAreFixedWidthAndOrdered() {
        assertThat(new String(ClosedLoopDriver.key(0))).isEqualTo("key00000000");
        assertThat(new String(ClosedLoopDriver.key(12345))).isEqualTo("key00012345");
    }

    @Test
    void recordsSuccessesCountsFailuresAndStaysWithinTheKeySpace() throws Exception {
        CountingClient client = new CountingClient();
        try (ClosedLoopDriver driver = new ClosedLoopDriver(client, 4, 50, 16, 7)) {
            driver.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (driver.errors() < 20 && System.nanoTime() < deadline) Thread.onSpinWait();
            assertThat(driver.errors()).isGreaterThanOrEqualTo(20);
            Histogram h = driver.intervalHistogram();
            assertThat(h.getTotalCount()).isPositive();
            assertThat(driver.lastError()).hasMessageContaining("no leader");
        }
        assertThat(client.map.keySet()).allMatch(k -> k.matches("key000000[0-4][0-9]"));
        assertThat(client.map.values()).allMatch(v -> v.length == 16);
    }

    @Test
    void aClientWhoseFuturesCarryAValueStillDrivesTheLoop() throws Exception {
        // The Tandem adapter hands out its KV client's future (the previous value): the driver must not care what
        // the value is (a cast of that future to CompletableFuture<Void> made every completion throw, and no put
        // after the first of each client was ever issued).
        AtomicInteger puts = new AtomicInteger();
        PeerClient valued = new PeerClient() {
            @Override
            public CompletableFuture<?> put(byte[] key, byte[] value) {
                puts.incrementAndGet();
                CompletableFuture<java.util.Optional<byte[]>> f = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> f.complete(java.util.Optional.of(value.clone())));
                return f;
            }

            @Override
            public void close() {}
        };
        try (ClosedLoopDriver driver = new ClosedLoopDriver(valued, 2, 50, 8, 3)) {
            driver.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (puts.get() < 1000 && System.nanoTime() < deadline) Thread.onSpinWait();
            assertThat(puts.get()).isGreaterThanOrEqualTo(1000);
            assertThat(driver.errors()).isZero();
            assertThat(driver.intervalHistogram().getTotalCount()).isPositive();
        }
    }

    @Test
    void histogramsSurviveTheTimelineEncoding() {
        Histogram h = new Histogram(3);
        for (int i = 1; i <= 1000; i++) h.recordValue(i * 7L);
        Histogram back = PeerMain.decode(PeerMain.encode(h));
        assertThat(back.getTotalCount()).isEqualTo(1000);
        assertThat(back.getValueAtPercentile(99)).isEqualTo(h.getValueAtPercentile(99));
        assertThatThrownBy(() -> PeerMain.decode("AAAA")).isInstanceOf(RuntimeException.class);
    }

    @Test
    void intervalHistogramsOfTheRecorderDecodeWhateverTheirRange() {
        org.HdrHistogram.Recorder recorder = new org.HdrHistogram.Recorder(3);
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 5000; i++) recorder.recordValue(1 + random.nextLong(round % 2 == 0 ? 2_000 : 30_000_000L));
            Histogram interval = recorder.getIntervalHistogram();
            Histogram back = PeerMain.decode(PeerMain.encode(interval));
            assertThat(back.getTotalCount()).isEqualTo(interval.getTotalCount());
            assertThat(back.getMaxValue()).isEqualTo(interval.getMaxValue());
        }
    }

    @Test
    void layoutGivesEachReplicaItsOwnPortBlockAndRejectsBadRanges() {
        ClusterLayout layout = new ClusterLayout("127.0.0.1", 3, 30000);
        assertThat(layout.port(0, 0)).isEqualTo(30000);
        assertThat(layout.port(2, 5)).isEqualTo(30000 + 2 * ClusterLayout.PORTS_PER_REPLICA + 5);
        assertThatThrownBy(() -> layout.port(3, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> layout.port(0, ClusterLayout.PORTS_PER_REPLICA)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ClusterLayout("127.0.0.1", 3, 65500)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReplicaConfig(3, layout, java.nio.file.Path.of("x"), true, Map.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void optionsParseAndBadOnesAreRefused() {
        assertThat(PeerMain.parseOptions(java.util.List.of("a=1", "b=x=y"))).containsEntry("a", "1").containsEntry("b", "x=y");
        assertThatThrownBy(() -> PeerMain.parseOptions(java.util.List.of("novalue"))).hasMessageContaining("key=value");
    }
}
