package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.tcp.TestSupport.Seq;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link DirectSend}: frames a non-I/O thread queues are written to the socket by that thread (no hand-off to the
 * I/O thread), and whatever this path does not take (frames larger than its buffer, bytes a full socket refused)
 * goes through Netty without breaking per-peer order or a frame.
 */
@ExtendWith(NettyLeakCheck.class)
class TcpDirectSendTest {
    private static TcpTransportConfig fast() {
        return TcpTransportConfig.defaults().withIoThreads(1).withReconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(200));
    }

    /** A payload whose bytes say which message and where, so a frame cut or spliced shows up. */
    private static byte[] payload(long seq, int length) {
        byte[] p = new byte[length];
        for (int i = 0; i < length; i++) p[i] = (byte) (seq * 31 + i);
        return p;
    }

    /** The test's messages n1 delivered to n2 (seq -1 is the connection check, resent by it if need be). */
    private static List<Long> seqs(Cluster c) {
        return c.recorder(N2).seqsFrom(N1).stream().filter(s -> s >= 0).toList();
    }

    private static void assertWhole(Cluster c, List<Integer> lengths) {
        List<ProtocolMessage> received = c.recorder(N2).from(N1).stream().filter(m -> ((Seq) m).seq() >= 0).toList();
        assertThat(received).hasSize(lengths.size());
        for (int i = 0; i < received.size(); i++) {
            Seq s = (Seq) received.get(i);
            assertThat(s.payload()).as("payload of message %d", s.seq()).isEqualTo(payload(s.seq(), lengths.get((int) s.seq())));
        }
    }

    @Test
    void sendsFromANonIoThreadGoStraightToTheSocketInOrder() {
        int n = 2_000;
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, -1);
            TcpTransport t = c.transport(N1);
            long directBefore = t.directFlushes();
            List<Integer> lengths = LongStream.range(0, n).mapToObj(i -> (int) (i % 13) * 7).toList();
            for (int i = 0; i < n; i++) assertThat(t.send(N2, new Seq(i, i, payload(i, lengths.get(i))))).isTrue();
            await("all delivered", () -> seqs(c).size() == n, () -> seqs(c).size() + " of " + n);
            assertThat(seqs(c)).isEqualTo(LongStream.range(0, n).boxed().toList());
            assertWhole(c, lengths);
            assertThat(t.directFlushes() - directBefore).as("flushes written by the sending thread").isPositive();
        }
    }

    @Test
    void framesLargerThanTheDirectBufferBetweenSmallOnesArriveWholeAndInOrder() {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, -1);
            TcpTransport t = c.transport(N1);
            // Small frames, frames around the direct path's frame limit and the buffer's size (one that just fits, one
            // that just does not) and frames far larger, in one stream: the direct path stops at each one it cannot
            // take and the event loop writes it through Netty before the direct path may continue.
            List<Integer> lengths = new java.util.ArrayList<>();
            for (int round = 0; round < 6; round++) {
                for (int d = -40; d <= 40; d += 4) lengths.add(DirectSend.BUFFER_BYTES - 8 + d);
                for (int d = -40; d <= 40; d += 4) lengths.add(DirectSend.MAX_FRAME_BYTES - 8 + d); // around the direct path's frame limit
                lengths.add(10);
                lengths.add(200_000);
                lengths.add(3);
            }
            int n = lengths.size();
            for (int i = 0; i < n; i++) assertThat(t.send(N2, new Seq(i, i, payload(i, lengths.get(i))))).isTrue();
            await("all delivered", () -> seqs(c).size() == n, () -> seqs(c).size() + " of " + n);
            assertThat(seqs(c)).isEqualTo(LongStream.range(0, n).boxed().toList());
            assertWhole(c, lengths);
            assertThat(t.stats().droppedSends()).isZero();
        }
    }

    /**
     * The receiver's only I/O thread is held, so it reads nothing: the sender's socket fills, a direct send is cut
     * short, the rest of its bytes (the tail of a frame, maybe) and everything after them go through Netty; once the
     * receiver reads again, every message arrives whole and in order, and later sends go direct again.
     */
    @Test
    void aSocketThatTakesOnlyPartGetsTheRestThroughNettyInOrder() throws Exception {
        TcpTransportConfig config = fast().withOutboundWatermarks(1_000_000, 500_000, 256L << 20, 128L << 20);
        try (Cluster c = new Cluster(config, N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, -1);
            TcpTransport t = c.transport(N1);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            c.transport(N2).eventLoops().next().execute(() -> {
                held.countDown();
                try {
                    release.await(TestSupport.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            List<Integer> lengths = new java.util.ArrayList<>();
            int n;
            try {
                assertThat(held.await(TestSupport.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
                // Until a send is cut short (the kernel's buffers on both ends are full), then as much again.
                long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
                int i = 0;
                while (t.directShortSends() == 0) {
                    assertThat(System.nanoTime()).as("a direct send is cut short").isLessThan(deadline);
                    lengths.add(1_000 + i % 3_001);
                    assertThat(t.send(N2, new Seq(i, i, payload(i, lengths.get(i))))).isTrue();
                    i++;
                }
                int more = i;
                for (int k = 0; k < more; k++, i++) {
                    lengths.add(1_000 + i % 3_001);
                    assertThat(t.send(N2, new Seq(i, i, payload(i, lengths.get(i))))).isTrue();
                }
                n = i;
            } finally {
                release.countDown();
            }
            int total = n;
            await("all delivered", () -> seqs(c).size() == total, () -> seqs(c).size() + " of " + total);
            assertThat(seqs(c)).isEqualTo(LongStream.range(0, total).boxed().toList());
            assertWhole(c, lengths);

            // Netty's buffer has drained: the event loop's next drain sees it empty and the direct path resumes.
            long directBefore = t.directFlushes();
            for (int k = 0; k < 50; k++) {
                long seq = total + k;
                lengths.add(16);
                assertThat(t.send(N2, new Seq(seq, seq, payload(seq, 16)))).isTrue();
                await("message " + seq + " delivered", () -> c.recorder(N2).received(N1, seq));
            }
            assertThat(t.directFlushes()).as("direct sends after the socket drained").isGreaterThan(directBefore);
            assertThat(seqs(c)).isEqualTo(LongStream.range(0, total + 50).boxed().toList());
            assertWhole(c, lengths);
            assertThat(t.stats().droppedSends()).isZero();
        }
    }
}
