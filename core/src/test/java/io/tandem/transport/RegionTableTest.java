package io.tandem.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link RegionTable#apply} copies a write in bulk: every word must still land whole (R3) whatever
 * the source's alignment (a frame inside a receive buffer starts anywhere) and the write's length
 * (short writes and long ones take different paths through the JDK's copy).
 */
class RegionTableTest {
    private static final NodeId SELF = NodeId.of("n1");
    private static final NodeId PEER = NodeId.of("n2");
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    @Test
    void aReaderNeverSeesATornWordWhileWritesOfEveryAlignmentAndLengthAreApplied() throws Exception {
        int regionBytes = 16 * 1024;
        RegionTable table = new RegionTable(SELF, Set.of(PEER));
        table.register("sst", regionBytes);
        MemorySegment copy = table.remote(PEER, "sst");
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<String> torn = new ConcurrentLinkedQueue<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (!done.get() && torn.isEmpty()) {
                for (long at = 0; at < regionBytes; at += 8) {
                    long w = (long) WORD.getAcquire(copy, at);
                    if (w != (w & 0xFF) * 0x0101010101010101L) torn.add(Long.toHexString(w) + " at " + at);
                }
            }
        });
        try {
            // Sources at every misalignment, heap and off-heap; lengths below and above the JDK's native copy threshold.
            byte[] frame = new byte[regionBytes + 8];
            MemorySegment offHeap = java.lang.foreign.Arena.ofAuto().allocate(regionBytes + 8, 8);
            List<Integer> lengths = List.of(8, 24, 64, 1024, 8 * 1024, regionBytes);
            for (int round = 1; round <= 20000; round++) {
                int length = lengths.get(round % lengths.size());
                int shift = round % 8;
                int offset = (round * 8 * 7) % (regionBytes - length + 8) / 8 * 8;
                MemorySegment src = (round & 1) == 0 ? MemorySegment.ofArray(frame) : offHeap;
                src.asSlice(shift, length).fill((byte) (round & 0xFF));
                assertThat(table.apply(PEER, "sst", offset, src.asSlice(shift, length))).isEqualTo(RegionTable.Outcome.APPLIED);
            }
        } finally {
            done.set(true);
            reader.join();
            table.close();
        }
        assertThat(torn).isEmpty();
    }

    @Test
    void anAppliedWriteHoldsTheSourceBytesWhateverTheirAlignment() {
        RegionTable table = new RegionTable(SELF, Set.of(PEER));
        table.register("sst", 4096);
        byte[] frame = new byte[3000];
        for (int i = 0; i < frame.length; i++) frame[i] = (byte) (i * 31 + 7);
        for (int shift = 0; shift < 8; shift++) {
            MemorySegment src = MemorySegment.ofArray(frame).asSlice(shift, 2048);
            assertThat(table.apply(PEER, "sst", 1024, src)).isEqualTo(RegionTable.Outcome.APPLIED);
            assertThat(table.remote(PEER, "sst").asSlice(1024, 2048).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(src.toArray(ValueLayout.JAVA_BYTE));
        }
        assertThat(table.apply(PEER, "sst", 4, MemorySegment.ofArray(new byte[8]))).isEqualTo(RegionTable.Outcome.BAD_RANGE);
        assertThat(table.apply(PEER, "sst", 4096 - 8, MemorySegment.ofArray(new byte[16]))).isEqualTo(RegionTable.Outcome.BAD_RANGE);
        table.close();
    }

    @Test
    void theChangeCountMovesForEveryAppliedWriteAndPeerChangeOnly() {
        NodeId third = NodeId.of("n3");
        RegionTable table = new RegionTable(SELF, Set.of(PEER));
        table.register("sst", 64);
        long start = table.changes();
        assertThat(table.apply(PEER, "sst", 0, new byte[8])).isEqualTo(RegionTable.Outcome.APPLIED);
        assertThat(table.changes()).isEqualTo(start + 1);
        // Writes that change nothing leave it where it is: a poller reading it would miss nothing.
        assertThat(table.apply(PEER, "sst", 4, new byte[8])).isEqualTo(RegionTable.Outcome.BAD_RANGE);
        assertThat(table.apply(PEER, "other", 0, new byte[8])).isEqualTo(RegionTable.Outcome.UNKNOWN_REGION);
        table.freeze(PEER);
        assertThat(table.apply(PEER, "sst", 0, new byte[8])).isEqualTo(RegionTable.Outcome.FROZEN);
        assertThat(table.changes()).isEqualTo(start + 1);
        // A peer's copies appearing or going away is a change of what a reader finds.
        table.addPeer(third);
        assertThat(table.changes()).isEqualTo(start + 2);
        table.removePeer(third);
        assertThat(table.changes()).isEqualTo(start + 3);
        table.close();
    }

    @Test
    void pushTargetsThatAreAscendingPeersComeBackAsTheyAreAndOthersAreFilteredAndSorted() {
        NodeId third = NodeId.of("n3");
        RegionTable table = new RegionTable(SELF, Set.of(PEER, third));
        List<NodeId> ordered = List.of(PEER, third);
        assertThat(table.targets(ordered)).isSameAs(ordered);
        assertThat(table.targets(List.of(third, PEER, PEER, SELF, NodeId.of("n9")))).containsExactly(PEER, third);
        assertThat(table.targets(Set.of(third, PEER))).containsExactly(PEER, third);
        table.close();
    }
}
