package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.transport.tcp.TestSupport.Seq;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link io.tandem.transport.Transport#startBatch()}: a thread's sends in a batch reach each peer in one
 * write when the batch is flushed, in order and whole; other threads' sends are not held.
 */
@ExtendWith(NettyLeakCheck.class)
class TcpBatchTest {
    private static TcpTransportConfig fast() {
        return TcpTransportConfig.defaults().withIoThreads(1).withReconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(200));
    }

    @Test
    void aBatchGoesToEachPeerInOneFlushInOrder() {
        int n = 100;
        try (Cluster c = new Cluster(fast(), N1, N2, N3)) {
            c.startAll();
            c.assertDelivers(N1, N2, -1);
            c.assertDelivers(N1, N3, -1);
            TcpTransport t = c.transport(N1);
            TcpTransportStats before = t.stats();
            t.startBatch();
            for (int i = 0; i < n; i++) {
                // Small frames, about 10 KB in all per peer: under the channel's write-buffer watermark, so one drain
                // writes them all (a drain stops early only when the channel becomes unwritable).
                byte[] payload = new byte[(i % 7) * 10];
                assertThat(t.send(N2, new Seq(i, i, payload))).isTrue();
                assertThat(t.send(N3, new Seq(i, i, payload))).isTrue();
            }
            t.flushBatch();
            // (Seq -1 is the connection check above; a resend of it, if any, was queued before the batch.)
            await("the batch delivered", () -> batchSeqs(c, N2).size() == n && batchSeqs(c, N3).size() == n,
                    () -> "n2 " + c.recorder(N2).count(N1) + ", n3 " + c.recorder(N3).count(N1));
            List<Long> expected = LongStream.range(0, n).boxed().toList();
            assertThat(batchSeqs(c, N2)).isEqualTo(expected);
            assertThat(batchSeqs(c, N3)).isEqualTo(expected);
            TcpTransportStats after = t.stats();
            assertThat(after.framesSent() - before.framesSent()).isEqualTo(2L * n);
            // Everything was queued before the one drain per peer that the flush asked for: one flush each.
            assertThat(after.flushes() - before.flushes()).isEqualTo(2);

            // A batch larger than the watermark (bodies of 100,000 bytes among small ones) still arrives whole and in order.
            t.startBatch();
            for (int i = n; i < 3 * n; i++) {
                byte[] payload = new byte[i % 25 == 24 ? 100_000 : (i % 7) * 30];
                assertThat(t.send(N2, new Seq(i, i, payload))).isTrue();
                assertThat(t.send(N3, new Seq(i, i, payload))).isTrue();
            }
            t.flushBatch();
            await("the second batch delivered", () -> batchSeqs(c, N2).size() == 3 * n && batchSeqs(c, N3).size() == 3 * n,
                    () -> "n2 " + c.recorder(N2).count(N1) + ", n3 " + c.recorder(N3).count(N1));
            expected = LongStream.range(0, 3 * n).boxed().toList();
            assertThat(batchSeqs(c, N2)).isEqualTo(expected);
            assertThat(batchSeqs(c, N3)).isEqualTo(expected);
            assertThat(c.recorder(N2).from(N1).stream().mapToInt(m -> ((Seq) m).payload().length).max()).hasValue(100_000);
            assertThat(t.stats().droppedSends()).isZero();
        }
    }

    private static List<Long> batchSeqs(Cluster c, io.tandem.engine.NodeId at) {
        return c.recorder(at).seqsFrom(N1).stream().filter(s -> s >= 0).toList();
    }

    @Test
    void anotherThreadsSendsAreNotHeldByABatchAndAnUnbatchedSendGoesAtOnce() throws Exception {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, -1);
            TcpTransport t = c.transport(N1);
            t.startBatch(); // this thread's batch stays open while the other thread sends
            try {
                CompletableFuture.runAsync(() -> t.send(N2, new Seq(1))).get(10, TimeUnit.SECONDS);
                await("the other thread's send delivered", () -> c.recorder(N2).received(N1, 1), () -> "count " + c.recorder(N2).count(N1));
            } finally {
                t.flushBatch();
            }
            // After the flush this thread writes at once again.
            assertThat(t.send(N2, new Seq(2))).isTrue();
            await("the unbatched send delivered", () -> c.recorder(N2).received(N1, 2), () -> "count " + c.recorder(N2).count(N1));
        }
    }
}
