package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.CLUSTER;
import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.codec.FrameFormat;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Large region writes are applied as their bytes arrive (Connection#startStream): written from a raw
 * socket in pieces of every length modulo 8, each lands whole, is announced once, and the frames
 * after it (streamed or not) are read as before.
 */
@ExtendWith(NettyLeakCheck.class)
class TcpStreamedRegionWriteTest {
    static final int REGION = 256 * 1024;
    private Cluster cluster;
    private TcpTransport n2;

    @BeforeEach
    void start() {
        cluster = new Cluster(TcpTransportTest.fast().withMaxFrameBytes(1 << 20), N1, N2, N3);
        n2 = cluster.start(N2);
        n2.regions().register("big", REGION);
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private static byte[] regionWrite(String region, int offset, long[] words) {
        byte[] name = region.getBytes(StandardCharsets.UTF_8);
        ByteBuffer data = ByteBuffer.allocate(words.length * 8).order(ByteOrder.nativeOrder());
        for (long w : words) data.putLong(w);
        byte[] body = RegionWriteBody.encode(name, offset, data.array(), 0, words.length * 8);
        ByteBuffer frame = ByteBuffer.allocate(FrameFormat.HEADER_BYTES + body.length);
        FrameFormat.writeHeader(frame, FrameFormat.TYPE_REGION_WRITE, body.length);
        return frame.put(body).array();
    }

    private static long[] words(int n, long seed) {
        long[] w = new long[n];
        for (int i = 0; i < n; i++) w[i] = seed * 1_000_003L + i * 0x9E3779B97F4A7C15L;
        return w;
    }

    private RawPeer handshakenPeer() throws Exception {
        RawPeer raw = new RawPeer(cluster.endpoint(N2));
        raw.sendHandshake(CLUSTER, N1, N2);
        assertThat(raw.readHandshake()).isEqualTo(new Handshake(CLUSTER, N2, N1));
        await("n2 accepts the raw n1", () -> n2.isConnected(N1));
        return raw;
    }

    @Test
    void aLargeWriteSentInOddPiecesLandsWholeAndIsAnnouncedOnce() throws Exception {
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        long[] first = words(20_000, 1);       // 160 KB: streamed
        long[] small = words(16, 2);           // 128 B: waits for its whole frame
        long[] second = words(9_000, 3);       // 72 KB at another offset: streamed
        stream.writeBytes(regionWrite("big", 8, first));
        stream.writeBytes(regionWrite("big", 240_000, small));
        stream.writeBytes(regionWrite("big", 160_008, second));
        byte[] all = stream.toByteArray();
        try (RawPeer raw = handshakenPeer()) {
            Random random = new Random(22);
            int at = 0;
            int i = 0;
            while (at < all.length) {
                // Every length modulo 8 (a read may end anywhere inside a word), and now and then a long run.
                int n = i++ % 5 == 4 ? 1 + random.nextInt(40_000) : 1 + random.nextInt(23);
                n = Math.min(n, all.length - at);
                byte[] piece = new byte[n];
                System.arraycopy(all, at, piece, 0, n);
                raw.sendRaw(piece);
                at += n;
            }
            await("the three writes are announced", () -> cluster.recorder(N2).regionWrites().size() == 3);
        }
        assertThat(cluster.recorder(N2).regionWrites()).containsExactly(
                new Recorder.RegionWrite(N1, "big", 8, first.length * 8),
                new Recorder.RegionWrite(N1, "big", 240_000, small.length * 8),
                new Recorder.RegionWrite(N1, "big", 160_008, second.length * 8));
        MemorySegment copy = n2.regions().remote(N1, "big");
        assertThat(copy.get(ValueLayout.JAVA_LONG, 0)).as("before the first write").isZero();
        for (int w = 0; w < first.length; w++) assertThat(copy.get(ValueLayout.JAVA_LONG, 8 + 8L * w)).isEqualTo(first[w]);
        for (int w = 0; w < second.length; w++) assertThat(copy.get(ValueLayout.JAVA_LONG, 160_008 + 8L * w)).isEqualTo(second[w]);
        for (int w = 0; w < small.length; w++) assertThat(copy.get(ValueLayout.JAVA_LONG, 240_000 + 8L * w)).isEqualTo(small[w]);
        assertThat(n2.stats().malformedFrames()).isZero();
        assertThat(n2.stats().regionWritesRejected()).isZero();
    }

    @Test
    void aLargeWriteOutsideTheRegionIsRefusedWholeAndTheConnectionReadsOn() throws Exception {
        long[] tooFar = words(1_000, 4); // 8 KB from 4 KB before the region's end
        long[] fine = words(1_000, 5);
        try (RawPeer raw = handshakenPeer()) {
            byte[] bad = regionWrite("big", REGION - 4096, tooFar);
            // Only its start first, so that the write is streamed, then the rest with the next write.
            raw.sendRaw(java.util.Arrays.copyOf(bad, 100));
            byte[] rest = java.util.Arrays.copyOfRange(bad, 100, bad.length);
            ByteArrayOutputStream tail = new ByteArrayOutputStream();
            tail.writeBytes(rest);
            tail.writeBytes(regionWrite("big", 0, fine));
            raw.sendRaw(tail.toByteArray());
            await("the good write is announced", () -> cluster.recorder(N2).regionWrites().size() == 1);
        }
        assertThat(cluster.recorder(N2).regionWrites()).containsExactly(new Recorder.RegionWrite(N1, "big", 0, fine.length * 8));
        assertThat(n2.stats().regionWritesRejected()).isEqualTo(1);
        assertThat(n2.stats().malformedFrames()).isZero();
        MemorySegment copy = n2.regions().remote(N1, "big");
        for (int w = 0; w < fine.length; w++) assertThat(copy.get(ValueLayout.JAVA_LONG, 8L * w)).isEqualTo(fine[w]);
        // Refused whole (checked before its first piece), not applied in part.
        assertThat(List.of(copy.get(ValueLayout.JAVA_LONG, REGION - 4096), copy.get(ValueLayout.JAVA_LONG, REGION - 8))).containsExactly(0L, 0L);
    }
}
