package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(NettyLeakCheck.class)
class TcpMemoryRegionsTest {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    static final int REGION_BYTES = 4096;
    static final int WORDS = REGION_BYTES / 8;

    /** Both halves carry the round number: a word mixing two rounds has unequal halves. */
    static long pattern(long round) {
        return (round << 32) | round;
    }

    @Test
    void pushesArriveInOrderAndNoWordIsEverSeenTorn() throws Exception {
        int rounds = 500;
        try (Cluster c = new Cluster(TcpTransportTest.fast(), N1, N2, N3)) {
            c.startAll();
            for (var id : List.of(N1, N2, N3)) c.transport(id).regions().register("sst", REGION_BYTES);
            MemorySegment local = c.transport(N1).regions().local("sst");
            MemorySegment atN2 = c.transport(N2).regions().remote(N1, "sst");
            MemorySegment atN3 = c.transport(N3).regions().remote(N1, "sst");

            AtomicBoolean writing = new AtomicBoolean(true);
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            Thread reader = Thread.ofPlatform().name("region-reader").start(() -> {
                long[] lastSeen = new long[WORDS];
                while (writing.get()) {
                    for (MemorySegment copy : List.of(atN2, atN3)) {
                        for (int w = 0; w < WORDS; w++) {
                            long word = (long) WORD.getVolatile(copy, (long) w * 8);
                            long round = word & 0xFFFF_FFFFL;
                            if ((word >>> 32) != round) violations.add("torn word " + Long.toHexString(word) + " at " + w);
                            if (copy == atN2) {
                                if (round < lastSeen[w]) violations.add("word " + w + " went back from round " + lastSeen[w] + " to " + round);
                                lastSeen[w] = round;
                            }
                        }
                    }
                    Thread.yield();
                }
            });
            for (long round = 1; round <= rounds; round++) {
                for (int w = 0; w < WORDS; w++) WORD.setVolatile(local, (long) w * 8, pattern(round));
                c.transport(N1).regions().push("sst", 0, REGION_BYTES);
            }
            long last = pattern(rounds);
            await("both peers hold the last round", () -> allWordsEqual(atN2, last) && allWordsEqual(atN3, last));
            writing.set(false);
            reader.join();
            assertThat(violations).isEmpty();
            assertThat(c.transport(N1).stats().droppedSends()).isZero();
            await("every push is reported to the listener", () -> c.recorder(N2).regionWrites().size() == rounds);
            assertThat(c.recorder(N2).regionWrites()).allSatisfy(w -> assertThat(w).isEqualTo(new Recorder.RegionWrite(N1, "sst", 0, REGION_BYTES)));
            assertThat(c.recorder(N2).count(N1)).isZero();
        }
    }

    @Test
    void aRangeLargerThanAFrameIsSplitIntoSeveralWrites() {
        int size = 256 * 1024;
        TcpTransportConfig config = TcpTransportTest.fast().withMaxFrameBytes(64 * 1024);
        try (Cluster c = new Cluster(config, N1, N2)) {
            c.startAll();
            c.transport(N1).regions().register("big", size);
            c.transport(N2).regions().register("big", size);
            MemorySegment local = c.transport(N1).regions().local("big");
            for (int w = 0; w < size / 8; w++) local.setAtIndex(ValueLayout.JAVA_LONG, w, w * 31L + 7);
            c.transport(N1).regions().push("big", 8, size - 16);
            MemorySegment remote = c.transport(N2).regions().remote(N1, "big");
            await("the whole range arrives", () -> remote.getAtIndex(ValueLayout.JAVA_LONG, size / 8 - 2) == (size / 8 - 2) * 31L + 7);
            for (int w = 1; w < size / 8 - 1; w++) assertThat(remote.getAtIndex(ValueLayout.JAVA_LONG, w)).isEqualTo(w * 31L + 7);
            assertThat(remote.getAtIndex(ValueLayout.JAVA_LONG, 0)).as("outside the pushed range").isZero();
            assertThat(remote.getAtIndex(ValueLayout.JAVA_LONG, size / 8 - 1)).as("outside the pushed range").isZero();
            List<Recorder.RegionWrite> writes = c.recorder(N2).regionWrites();
            assertThat(writes).hasSizeGreaterThan(4);
            assertThat(writes.getFirst().offset()).isEqualTo(8);
            assertThat(writes.stream().mapToInt(Recorder.RegionWrite::length).sum()).isEqualTo(size - 16);
        }
    }

    @Test
    void aWriteToARegionThePeerHasNotRegisteredIsCountedAndKeepsTheConnection() {
        try (Cluster c = new Cluster(TcpTransportTest.fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, 0);
            c.transport(N1).regions().register("only-on-n1", 64);
            c.transport(N1).regions().push("only-on-n1", 0, 64);
            await("n2 counts the rejected region write", () -> c.transport(N2).stats().regionWritesRejected() == 1);
            assertThat(c.recorder(N2).regionWrites()).isEmpty();
            assertThat(c.transport(N2).stats().malformedFrames()).isZero();
            c.assertDelivers(N1, N2, 1);
            assertThat(c.transport(N1).stats().connectionsOpened()).isEqualTo(1);
        }
    }

    private static boolean allWordsEqual(MemorySegment s, long value) {
        for (int w = 0; w < WORDS; w++) {
            if ((long) WORD.getVolatile(s, (long) w * 8) != value) return false;
        }
        return true;
    }
}
