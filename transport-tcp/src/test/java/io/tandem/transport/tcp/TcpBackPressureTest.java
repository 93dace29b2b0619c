package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.CLUSTER;
import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.transport.tcp.TestSupport.Seq;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The per-peer outbound queue is bounded in bytes and in messages, drops are counted, and other peers are unaffected. */
@ExtendWith(NettyLeakCheck.class)
class TcpBackPressureTest {

    /**
     * A peer that completes the handshake and then never reads: n2's queue to it fills to its byte
     * bound, further sends to it are refused and counted without blocking, and a healthy peer (n3)
     * served by the same transport and event loop still receives everything, in order.
     */
    @Test
    void aPeerThatStopsReadingFillsOnlyItsOwnBoundedQueue() throws Exception {
        long highBytes = 4L << 20;
        long lowBytes = 2L << 20;
        TcpTransportConfig config = TcpTransportTest.fast()
                .withMaxFrameBytes(64 * 1024)
                .withOutboundWatermarks(100_000, 50_000, highBytes, lowBytes);
        try (Cluster c = new Cluster(config, N1, N2, N3)) {
            TcpTransport n2 = c.start(N2);
            c.start(N3);
            c.assertDelivers(N2, N3, -1);
            RawPeer stuck = new RawPeer(c.endpoint(N2), 4096);
            stuck.sendHandshake(CLUSTER, N1, N2); // and never reads another byte, not even the reply
            await("n2 accepts the stuck peer", () -> n2.isConnected(N1));

            byte[] payload = new byte[8 * 1024];
            long accepted = 0;
            long refused = 0;
            long toHealthy = 0;
            long maxQueuedBytes = 0;
            long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
            while (refused == 0) {
                assertThat(System.nanoTime() - deadline).as("sends to the stuck peer are eventually refused").isNegative();
                if (n2.send(N1, new Seq(accepted, accepted, payload))) accepted++;
                else refused++;
                maxQueuedBytes = Math.max(maxQueuedBytes, n2.queuedBytes(N1));
                assertThat(n2.send(N3, new Seq(toHealthy))).isTrue();
                toHealthy++;
            }
            assertThat(maxQueuedBytes).isLessThanOrEqualTo(highBytes).isGreaterThan(highBytes - 2 * payload.length);
            // The queue took messages until it reached its bound. (How much the kernel and Netty's
            // write buffer absorbed before that depends on scheduling, so it is not asserted.)
            assertThat(accepted * payload.length).as("sends were accepted until the queue reached its byte bound").isGreaterThanOrEqualTo(highBytes - payload.length);

            // Hysteresis: once refused, the queue takes a send again only after it drained below its low
            // watermark. The peer never reads, but the kernel's socket buffers may still absorb some of the
            // queue after the first refusal (how much depends on scheduling), so an accepted send is allowed
            // only right after such a drain: the queue then holds at most the low watermark plus that send.
            // Once the queue has reopened, further sends are taken again until it is full (the bound is
            // checked below), so only the first send accepted after each refusal is held to the low watermark.
            boolean refusing = true;
            for (int i = 0; i < 1000; i++) {
                if (n2.send(N1, new Seq(i, i, payload))) {
                    if (refusing) {
                        // At most the low watermark plus that one frame (its payload, the frame header and the encoding of Seq).
                        assertThat(n2.queuedBytes(N1)).as("the first send accepted after a refusal").isLessThanOrEqualTo(lowBytes + payload.length + 256);
                    }
                    refusing = false;
                } else {
                    refused++;
                    refusing = true;
                }
                maxQueuedBytes = Math.max(maxQueuedBytes, n2.queuedBytes(N1));
                assertThat(n2.send(N3, new Seq(toHealthy))).isTrue();
                toHealthy++;
            }
            assertThat(maxQueuedBytes).isLessThanOrEqualTo(highBytes);
            assertThat(n2.queuedBytes(N1)).isLessThanOrEqualTo(highBytes);
            assertThat(n2.droppedSends(N1)).isEqualTo(refused);
            assertThat(n2.droppedSends(N3)).isZero();
            assertThat(n2.stats().droppedSends()).isEqualTo(refused);
            assertThat(c.registry(N2).get("tandem.transport.sends.dropped").tags("node", "n2", "peer", "n1").functionCounter().count()).isEqualTo(refused);
            assertThat(c.registry(N2).get("tandem.transport.outbox.bytes").tags("node", "n2", "peer", "n1").gauge().value())
                    .isEqualTo(n2.queuedBytes(N1)).isPositive();

            long expected = toHealthy;
            await("n3 receives every message n2 sent it", () -> c.recorder(N3).count(N2) == expected + 1, () -> c.recorder(N3).count(N2) + " of " + expected);
            assertThat(c.recorder(N3).seqsFrom(N2)).isEqualTo(LongStream.range(-1, expected).boxed().toList());
            c.assertDelivers(N3, N2, 1);
            assertThat(n2.isConnected(N1)).as("a slow peer is not disconnected, only bounded").isTrue();
            stuck.close();
        }
    }

    /**
     * Messages to a peer that is down wait in its queue up to the message bound; beyond it sends
     * are refused until the queue has drained below the low watermark, which happens once the peer
     * comes up and the queued messages are delivered, in order.
     */
    @Test
    void theQueueToAPeerThatIsDownIsBoundedInMessagesAndReopensAfterDraining() {
        int high = 200;
        int low = 100;
        TcpTransportConfig config = TcpTransportTest.fast().withMaxFrameBytes(64 * 1024).withOutboundWatermarks(high, low, 1 << 20, 1 << 19);
        try (Cluster c = new Cluster(config, N1, N2)) {
            TcpTransport n1 = c.start(N1);
            for (int i = 0; i < high; i++) assertThat(n1.send(N2, new Seq(i))).isTrue();
            assertThat(n1.queuedMessages(N2)).isEqualTo(high);
            for (int i = 0; i < 50; i++) assertThat(n1.send(N2, new Seq(10_000 + i))).isFalse();
            assertThat(n1.droppedSends(N2)).isEqualTo(50);
            assertThat(n1.queuedMessages(N2)).isEqualTo(high);

            c.start(N2);
            await("the queue drains into the peer once it is up", () -> n1.queuedMessages(N2) == 0);
            assertThat(n1.send(N2, new Seq(high))).as("accepted again below the low watermark").isTrue();
            await("everything queued arrives", () -> c.recorder(N2).count(N1) == high + 1);
            assertThat(c.recorder(N2).seqsFrom(N1)).isEqualTo(LongStream.rangeClosed(0, high).boxed().toList());
            assertThat(n1.droppedSends(N2)).isEqualTo(50);
        }
    }
}
