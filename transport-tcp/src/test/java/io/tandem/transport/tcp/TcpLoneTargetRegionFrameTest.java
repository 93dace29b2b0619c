package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A push to one peer of a range whose frame is larger than {@link DirectSend#MAX_FRAME_BYTES} is snapshotted into a
 * pooled direct frame that Netty writes as it is (vsync22), where it was a heap body copied into a batch buffer. Pushes
 * on both sides of that limit, small ones between them, each overwritten locally right after its push: every write
 * lands whole, in order, with the bytes the region held at the push (a frame read later would show the overwrite),
 * and every pooled frame is released ({@link NettyLeakCheck}).
 */
@ExtendWith(NettyLeakCheck.class)
class TcpLoneTargetRegionFrameTest {
    static final int REGION = 1 << 20;
    static final long POISON = 0xDEAD_BEEF_DEAD_BEEFL;

    private static long word(int push, int w) {
        return ((long) push << 32) | w;
    }

    @Test
    void largeLoneTargetPushesLandWholeInOrderWithTheSnapshotTakenAtThePush() {
        try (Cluster c = new Cluster(TcpTransportTest.fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, 0);
            for (var id : List.of(N1, N2)) c.transport(id).regions().register("sst", REGION);
            MemorySegment local = c.transport(N1).regions().local("sst");
            int overhead = io.tandem.codec.FrameFormat.HEADER_BYTES + RegionWriteBody.dataOffset("sst".getBytes(StandardCharsets.UTF_8));
            int limitChunk = (DirectSend.MAX_FRAME_BYTES - overhead) / 8 * 8; // the largest chunk whose frame keeps the heap body
            List<Integer> lengths = new ArrayList<>();
            for (int d = -64; d <= 64; d += 8) lengths.add(limitChunk + d);
            lengths.add(40 * 1024);
            lengths.add(8);
            lengths.add(8 * 1024 + 64); // an 8 KiB payload's ring slot, as the benchmark pushes it
            List<Recorder.RegionWrite> expected = new ArrayList<>();
            int offset = 0;
            for (int p = 0; p < lengths.size(); p++) {
                int length = lengths.get(p);
                for (int w = 0; w < length / 8; w++) local.set(ValueLayout.JAVA_LONG, offset + 8L * w, word(p, w));
                c.transport(N1).regions().push("sst", offset, length, List.of(N2));
                // Overwritten at once and never pushed: the peer must see the snapshot, not this.
                for (int w = 0; w < length / 8; w++) local.set(ValueLayout.JAVA_LONG, offset + 8L * w, POISON);
                expected.add(new Recorder.RegionWrite(N1, "sst", offset, length));
                c.transport(N1).regions().push("sst", REGION - 8, 8, List.of(N2)); // a small one between: order across both paths
                expected.add(new Recorder.RegionWrite(N1, "sst", REGION - 8, 8));
                offset += length;
            }
            await("every push is announced", () -> c.recorder(N2).regionWrites().size() == expected.size());
            assertThat(c.recorder(N2).regionWrites()).isEqualTo(expected);
            MemorySegment remote = c.transport(N2).regions().remote(N1, "sst");
            offset = 0;
            for (int p = 0; p < lengths.size(); p++) {
                for (int w = 0; w < lengths.get(p) / 8; w++) {
                    long got = remote.get(ValueLayout.JAVA_LONG, offset + 8L * w);
                    if (got != word(p, w)) assertThat(got).as("push %d, word %d", p, w).isEqualTo(word(p, w));
                }
                offset += lengths.get(p);
            }
            assertThat(c.transport(N1).stats().droppedSends()).isZero();
            assertThat(c.transport(N2).stats().regionWritesRejected()).isZero();
        }
    }
}
