package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.tandem.engine.NodeId;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Large region pushes go in reused direct frames ({@link RegionFrames}, vsync25): to one target and to
 * several, every push lands as the snapshot taken at the push (never a later overwrite, although the
 * buffer is reused for the next push), cut into frames of at most {@link RegionFrames#LARGE_CHUNK_MAX}
 * and announced in order; once the peers hold everything no frame refers to a kept buffer, and no
 * buffer leaks (NettyLeakCheck).
 */
@ExtendWith(NettyLeakCheck.class)
class TcpRegionFramesTest {
    static final int REGION = 1 << 20;

    /** Both halves carry the round and the word's index: a stale or misplaced word has other halves. */
    static long word(int round, int w) {
        return ((long) round << 40) ^ ((long) w << 8) ^ round;
    }

    @Test
    void largePushesToOneAndTwoPeersLandAsTheirSnapshotsAndTheBuffersComeBack() {
        try (Cluster c = new Cluster(TcpTransportTest.fast().withMaxFrameBytes(1 << 20), N1, N2, N3)) {
            c.startAll();
            for (NodeId id : List.of(N1, N2, N3)) c.transport(id).regions().register("big", REGION);
            MemorySegment local = c.transport(N1).regions().local("big");
            List<Recorder.RegionWrite> expected = new ArrayList<>();
            List<Recorder.RegionWrite> expectedAtN3 = new ArrayList<>();
            // First one push of 600 KiB to both: cut into frames of 256 KiB, 256 KiB and 88 KiB.
            int length = 600 * 1024;
            fill(local, 0, length, 0);
            c.transport(N1).regions().push("big", 0, length, List.of(N2, N3));
            for (int at = 0; at < length; at += RegionFrames.LARGE_CHUNK_MAX) {
                Recorder.RegionWrite write = new Recorder.RegionWrite(N1, "big", at, Math.min(RegionFrames.LARGE_CHUNK_MAX, length - at));
                expected.add(write);
                expectedAtN3.add(write);
            }
            // Then 48 pushes of 72 KiB (one frame each, above LARGE_CHUNK_MIN) at 12 places in turn, odd rounds to N2
            // alone, even rounds to both, each overwritten locally at once: more frames under way than buffers kept, so
            // a buffer reused while a link still held it would leave a later round's bytes at an earlier round's place.
            int piece = 72 * 1024;
            int places = 12;
            int rounds = 48;
            for (int round = 1; round <= rounds; round++) {
                int at = (round % places) * (80 * 1024);
                fill(local, at, piece, round);
                List<NodeId> to = round % 2 == 1 ? List.of(N2) : List.of(N2, N3);
                c.transport(N1).regions().push("big", at, piece, to);
                Recorder.RegionWrite write = new Recorder.RegionWrite(N1, "big", at, piece);
                expected.add(write);
                if (round % 2 == 0) expectedAtN3.add(write);
                for (int w = 0; w < piece / 8; w++) local.set(ValueLayout.JAVA_LONG, at + 8L * w, -1L); // after the push
            }
            await("N2 got every write", () -> c.recorder(N2).regionWrites().size() == expected.size());
            await("N3 got every write sent to it", () -> c.recorder(N3).regionWrites().size() == expectedAtN3.size());
            assertThat(c.recorder(N2).regionWrites()).containsExactlyElementsOf(expected);
            assertThat(c.recorder(N3).regionWrites()).containsExactlyElementsOf(expectedAtN3);
            MemorySegment atN2 = c.transport(N2).regions().remote(N1, "big");
            MemorySegment atN3 = c.transport(N3).regions().remote(N1, "big");
            for (int round = rounds - places + 1; round <= rounds; round++) { // the last round at each place
                int at = (round % places) * (80 * 1024);
                assertThat(holds(atN2, at, piece, round)).as("N2 holds round %d's snapshot", round).isTrue();
                if (round % 2 == 0) assertThat(holds(atN3, at, piece, round)).as("N3 holds round %d's snapshot", round).isTrue();
            }
            // Between two places the first push's bytes stay (no later write covered them).
            assertThat(holds(atN2, piece, 8 * 1024, 0) && holds(atN3, piece, 8 * 1024, 0)).as("the first push between places").isTrue();
            assertThat(c.transport(N1).stats().droppedSends()).isZero();
            RegionFrames frames = c.transport(N1).regionFrames();
            await("every link let go of its frames", () -> frames.outstanding() == 0);
            assertThat(frames.keptBuffers()).isBetween(1, RegionFrames.KEPT);
        }
    }

    private static void fill(MemorySegment region, int at, int length, int round) {
        for (int w = 0; w < length / 8; w++) region.set(ValueLayout.JAVA_LONG, at + 8L * w, word(round, at / 8 + w));
    }

    private static boolean holds(MemorySegment copy, int at, int length, int round) {
        for (int w = 0; w < length / 8; w++) {
            if (copy.get(ValueLayout.JAVA_LONG, at + 8L * w) != word(round, at / 8 + w)) return false;
        }
        return true;
    }

    @Test
    void aBufferIsHandedOutAgainOnlyOnceNothingRefersToIt() {
        RegionFrames frames = new RegionFrames();
        ByteBuf first = frames.take(RegionFrames.CAPACITY);
        ByteBuf queued = first.retainedDuplicate(); // a link's reference
        first.release(); // the writer's
        ByteBuf second = frames.take(1000);
        assertThat(second).as("the first is still queued").isNotSameAs(first);
        second.release();
        assertThat(frames.outstanding()).isEqualTo(1);
        queued.release(); // the link wrote it
        assertThat(frames.outstanding()).isZero();
        ByteBuf again = frames.take(1000);
        assertThat(again).as("the first kept buffer is free again").isSameAs(first);
        assertThat(again.writerIndex()).isZero();
        again.release();
        ByteBuf tooLarge = frames.take(RegionFrames.CAPACITY + 1);
        assertThat(tooLarge.capacity()).isGreaterThan(RegionFrames.CAPACITY);
        tooLarge.release();
        assertThat(frames.keptBuffers()).isEqualTo(2);
        frames.close();
        assertThat(first.refCnt()).as("freed by close").isZero();
        ByteBuf afterClose = frames.take(1000);
        assertThat(afterClose.refCnt()).isEqualTo(1);
        afterClose.release();
    }
}
