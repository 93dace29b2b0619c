package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.CLUSTER;
import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.codec.FrameFormat;
import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.tcp.TestSupport.Seq;
import io.tandem.transport.tcp.TestSupport.Slab;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Large messages (session 14, the RDMC block path): a {@link io.tandem.codec.TrailingBytes} message is queued
 * as its encoded head and its bytes, copied once into the send buffer; a message body over 64 KiB is read
 * into an array of its own as its bytes arrive (no cumulation), and the codec may keep slices of it. The
 * bytes on the wire are those of a plain encoding, and the frames around a large one are read as before.
 */
@ExtendWith(NettyLeakCheck.class)
class TcpLargeMessageTest {
    private Cluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void largeSlicesArriveExactlyInOrderAmongSmallMessagesAndAreKeptAsSlicesOfTheirFrame() {
        cluster = new Cluster(TcpTransportTest.fast().withMaxFrameBytes(4 << 20), N1, N2);
        TcpTransport n1 = cluster.start(N1);
        cluster.start(N2);
        await("connected", () -> n1.isConnected(N2));
        byte[] big = bytes(3 << 20, 1);
        // Sizes around the thresholds (64 KiB: trailing path and own-array reading), at odd offsets.
        int[] sizes = {65_535, 65_536, 65_537, 100_000, 1 << 20, 1_500_001, 2 << 20};
        List<Slab> sent = new ArrayList<>();
        long id = 0;
        for (int round = 0; round < 3; round++) {
            for (int size : sizes) {
                Slab s = new Slab(id++, big, 7 + round * 1001, size);
                sent.add(s);
                assertThat(n1.send(N2, s)).isTrue();
                assertThat(n1.send(N2, new Seq(id++))).isTrue(); // a small message between two large ones
            }
        }
        long expected = id;
        await("all arrive", () -> cluster.recorder(N2).from(N1).size() == expected);
        List<ProtocolMessage> got = cluster.recorder(N2).from(N1);
        int slab = 0;
        for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i).requestId()).as("message %d", i).isEqualTo(i);
            if (got.get(i) instanceof Slab s) {
                Slab want = sent.get(slab++);
                assertThat(s.count()).isEqualTo(want.count());
                assertThat(s.bytes()).as("slab %d", s.requestId()).isEqualTo(want.bytes());
                // Over 64 KiB the frame's array is the message's own: the slab is a slice of it (after its 15-byte head).
                if (s.count() > 65_536) assertThat(s.from()).as("slice of its own frame array").isPositive();
            }
        }
        assertThat(slab).isEqualTo(sent.size());
        assertThat(cluster.transport(N2).stats().malformedFrames()).isZero();
    }

    @Test
    void aLargeFrameSentInOddPiecesIsDecodedWholeAndTheFramesAfterItAreReadAsBefore() throws Exception {
        cluster = new Cluster(TcpTransportTest.fast().withMaxFrameBytes(1 << 20), N1, N2);
        TcpTransport n2 = cluster.start(N2);
        Slab first = new Slab(1, bytes(300_000, 2), 0, 300_000);
        Slab second = new Slab(3, bytes(70_000, 3), 0, 70_000);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        stream.writeBytes(frame(cluster.codec.encode(first)));
        stream.writeBytes(frame(cluster.codec.encode(new Seq(2))));
        stream.writeBytes(frame(cluster.codec.encode(second)));
        stream.writeBytes(frame(cluster.codec.encode(new Seq(4))));
        byte[] all = stream.toByteArray();
        try (RawPeer raw = new RawPeer(cluster.endpoint(N2))) {
            raw.sendHandshake(CLUSTER, N1, N2);
            assertThat(raw.readHandshake()).isEqualTo(new Handshake(CLUSTER, N2, N1));
            await("n2 accepts the raw n1", () -> n2.isConnected(N1));
            Random random = new Random(14);
            int at = 0;
            int i = 0;
            while (at < all.length) {
                // Reads that end anywhere: inside a header, inside a body, at a frame's end; now and then a long run.
                int n = Math.min(i++ % 4 == 3 ? 1 + random.nextInt(50_000) : 1 + random.nextInt(13), all.length - at);
                byte[] piece = new byte[n];
                System.arraycopy(all, at, piece, 0, n);
                raw.sendRaw(piece);
                at += n;
            }
            await("the four messages arrive", () -> cluster.recorder(N2).from(N1).size() == 4);
        }
        List<ProtocolMessage> got = cluster.recorder(N2).from(N1);
        assertThat(got).extracting(ProtocolMessage::requestId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(((Slab) got.get(0)).bytes()).isEqualTo(first.bytes());
        assertThat(((Slab) got.get(2)).bytes()).isEqualTo(second.bytes());
        assertThat(n2.stats().malformedFrames()).isZero();
    }

    @Test
    void anUndecodableLargeBodyClosesTheConnectionAsASmallOneDoes() throws Exception {
        cluster = new Cluster(TcpTransportTest.fast().withMaxFrameBytes(1 << 20), N1, N2);
        TcpTransport n2 = cluster.start(N2);
        byte[] body = cluster.codec.encode(new Slab(1, bytes(200_000, 4), 0, 200_000));
        body[body.length - 200_000 - 1] = 0x7f; // the slab's count now claims more bytes than the frame holds
        byte[] wire = frame(body);
        try (RawPeer raw = new RawPeer(cluster.endpoint(N2))) {
            raw.sendHandshake(CLUSTER, N1, N2);
            assertThat(raw.readHandshake()).isEqualTo(new Handshake(CLUSTER, N2, N1));
            await("n2 accepts the raw n1", () -> n2.isConnected(N1));
            raw.sendRaw(java.util.Arrays.copyOf(wire, 1000)); // the header and a little: read as it arrives
            raw.sendRaw(java.util.Arrays.copyOfRange(wire, 1000, wire.length));
            raw.awaitClosedByPeer();
        }
        assertThat(n2.stats().malformedFrames()).isEqualTo(1);
        assertThat(cluster.recorder(N2).from(N1)).isEmpty();
    }

    private static byte[] frame(byte[] body) {
        ByteBuffer f = ByteBuffer.allocate(FrameFormat.HEADER_BYTES + body.length);
        FrameFormat.writeHeader(f, FrameFormat.TYPE_MESSAGE, body.length);
        return f.put(body).array();
    }
}
