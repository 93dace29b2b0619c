package io.tandem.sst;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The SST on its own (derecho.md §9.1 T1, T3, T5, T6): the layout rules, monotonic counters, the
 * three predicate kinds, and memory ordering under concurrent threads over off-heap rows: no torn
 * word, and a guard that is never seen before the data it publishes. Threads appear only here, in
 * the test; engines drive an SST from their one loop.
 */
class SstTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final List<NodeId> AB = List.of(A, B);

    @Test
    void theLayoutPadsEveryFieldToWholeWordsAndTheRowToWholeCacheLines() {
        SstLayout.Builder b = SstLayout.builder();
        SstLayout.Column vid = b.column("vid");
        SstLayout.Bytes odd = b.bytes("odd", 13);
        SstLayout.Array counters = b.array("counters", 9);
        SstLayout.Column after = b.column("after");
        SstLayout layout = b.build();
        assertThat(vid.offset()).isZero();
        assertThat(odd.offset()).isEqualTo(8);
        assertThat(odd.length()).isEqualTo(16);
        assertThat(counters.offset()).isEqualTo(24);
        assertThat(counters.offsetOf(8)).isEqualTo(24 + 64);
        assertThat(after.offset()).isEqualTo(24 + 72);
        assertThat(layout.rowBytes()).isEqualTo(128);
        for (SstLayout.Field f : layout.fields()) {
            for (int w = f.offset(); w < f.offset() + f.length(); w += 8) assertThat(w / 64).isEqualTo((w + 7) / 64); // no word crosses a line
        }
        assertThatThrownBy(() -> counters.offsetOf(9)).isInstanceOf(IndexOutOfBoundsException.class);
        SstLayout.Builder twice = SstLayout.builder();
        twice.column("x");
        assertThatThrownBy(() -> twice.column("x")).hasMessageContaining("declared twice");
    }

    @Test
    void equalDeclarationsHaveEqualLayoutHashesAndOtherDeclarationsDoNot() {
        SstLayout.Builder one = SstLayout.builder();
        one.column("vid");
        one.array("received", 4);
        SstLayout.Builder two = SstLayout.builder();
        two.column("vid");
        two.array("received", 4);
        SstLayout.Builder other = SstLayout.builder();
        other.column("vid");
        other.array("received", 5);
        assertThat(one.build().layoutHash()).isEqualTo(two.build().layoutHash()).isNotEqualTo(other.build().layoutHash());
    }

    @Test
    void countersOnlyGoForwardAndPushesReachOnlyTheTargets() {
        SstLayout.Builder b = SstLayout.builder();
        SstLayout.Column count = b.column("count");
        SstLayout.Array received = b.array("received", 2);
        SstLayout layout = b.build();
        try (Arena arena = Arena.ofConfined()) {
            LocalRows rows = new LocalRows(arena, List.of(A, B, NodeId.of("c")), layout);
            Sst a = new Sst(layout, rows.of(A));
            Sst bSst = new Sst(layout, rows.of(B));
            Sst c = new Sst(layout, rows.of(NodeId.of("c")));
            a.advance(count, 5);
            a.advance(received, 1, 7);
            assertThatThrownBy(() -> a.advance(count, 4)).hasMessageContaining("would go back from 5 to 4");
            assertThat(bSst.get(A, count)).isZero(); // not pushed yet: a peer sees a write only after a push
            a.push(count, List.of(B));
            assertThat(bSst.get(A, count)).isEqualTo(5);
            assertThat(bSst.get(A, received, 1)).isZero();
            assertThat(c.get(A, count)).isZero();
            a.pushRow(List.of(B, NodeId.of("c")));
            assertThat(c.get(A, received, 1)).isEqualTo(7);
        }
    }

    @Test
    void oneTimeRecurrentAndTransitionPredicatesFireAsDerechoDefinesThem() {
        Predicates p = new Predicates();
        boolean[] cond = {false};
        List<String> fired = new ArrayList<>();
        p.insert("once", () -> cond[0], () -> fired.add("once"), Predicates.Kind.ONE_TIME);
        p.insert("always", () -> cond[0], () -> fired.add("always"), Predicates.Kind.RECURRENT);
        p.insert("edge", () -> cond[0], () -> fired.add("edge"), Predicates.Kind.TRANSITION);
        assertThat(p.evaluate()).isZero();
        cond[0] = true;
        assertThat(p.evaluate()).isEqualTo(3);
        assertThat(p.evaluate()).isEqualTo(1);
        cond[0] = false;
        p.evaluate();
        cond[0] = true;
        p.evaluate();
        assertThat(fired).containsExactly("once", "always", "edge", "always", "always", "edge");
        assertThat(p.size()).isEqualTo(2);
    }

    @Test
    void aTriggerMayRemoveOtherPredicatesAndItselfAndAnIdleTriggerReportsNoWork() {
        Predicates p = new Predicates();
        List<String> fired = new ArrayList<>();
        AtomicReference<Predicates.Handle> victim = new AtomicReference<>();
        AtomicReference<Predicates.Handle> self = new AtomicReference<>();
        self.set(p.insert("wedge", () -> true, () -> {
            fired.add("wedge");
            p.remove(victim.get());
            p.remove(self.get());
        }, Predicates.Kind.RECURRENT));
        victim.set(p.insert("deliver", () -> true, () -> fired.add("deliver"), Predicates.Kind.RECURRENT));
        p.insert("idle", () -> true, () -> 0, Predicates.Kind.RECURRENT);
        assertThat(p.evaluate()).isEqualTo(1);
        assertThat(p.evaluate()).isZero();
        assertThat(fired).containsExactly("wedge");
        assertThat(victim.get().isRemoved()).isTrue();
    }

    /** A word whose low half is a checksum of its high half: a torn word (halves of two writes) fails the check. */
    private static long checked(long value) {
        int high = (int) value;
        return ((long) high << 32) | ((high * 0x9E3779B1) & 0xffffffffL);
    }

    private static boolean intact(long word) {
        return word == 0 || checked(word >>> 32) == word;
    }

    /**
     * T1/T5 (R2, R5): a writer thread fills a multi-word record with generation g, pushes it, then
     * publishes guard g in a separate push; a reader thread on the peer acquires the guard and must
     * find every data word at generation g or later, never older, and never torn.
     */
    @Test
    void aReaderThatSeesTheGuardSeesTheDataItPublishes() throws Exception {
        SstLayout.Builder b = SstLayout.builder();
        SstLayout.Bytes data = b.bytes("data", 8 * 16);
        SstLayout.Column guard = b.column("guard");
        SstLayout layout = b.build();
        int generations = 100_000;
        try (Arena arena = Arena.ofShared()) {
            LocalRows rows = new LocalRows(arena, AB, layout);
            Sst writer = new Sst(layout, rows.of(A));
            Sst reader = new Sst(layout, rows.of(B));
            AtomicReference<String> problem = new AtomicReference<>();
            Thread w = Thread.ofPlatform().start(() -> {
                for (long g = 1; g <= generations; g++) {
                    for (int i = 0; i < 16; i++) writer.writeWord(data, 8 * i, checked(g));
                    writer.publish(data, 0, 8 * 16, guard, g, List.of(B));
                }
            });
            Thread r = Thread.ofPlatform().start(() -> {
                long last = 0;
                while (last < generations && problem.get() == null) {
                    long g = reader.get(A, guard);
                    if (g < last) problem.set("the guard went back from " + last + " to " + g);
                    last = g;
                    if (g == 0) continue;
                    for (int i = 0; i < 16; i++) {
                        long word = reader.readWord(A, data, 8 * i);
                        if (!intact(word)) problem.set("torn word " + Long.toHexString(word));
                        else if ((word >>> 32) < g) problem.set("guard " + g + " was visible before its data: word " + i + " holds generation " + (word >>> 32));
                    }
                }
            });
            w.join();
            r.join();
            assertThat(problem.get()).isNull();
            assertThat(reader.get(A, guard)).isEqualTo(generations);
        }
    }

    /**
     * T3 (R3): two threads on the owner's side update two different fields while a third pushes the
     * row over and over; the peer never sees a word that was never written (each word carries a
     * checksum half) and each field only moves forward.
     */
    @Test
    void concurrentWritersOnTheOwnersSideNeverProduceATornWordAtThePeer() throws Exception {
        SstLayout.Builder b = SstLayout.builder();
        SstLayout.Column left = b.column("left");
        SstLayout.Column right = b.column("right");
        SstLayout layout = b.build();
        int writes = 100_000;
        try (Arena arena = Arena.ofShared()) {
            LocalRows rows = new LocalRows(arena, AB, layout);
            Sst owner = new Sst(layout, rows.of(A));
            Sst peer = new Sst(layout, rows.of(B));
            AtomicReference<String> problem = new AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread l = Thread.ofPlatform().start(() -> {
                for (long i = 1; i <= writes; i++) owner.set(left, checked(i));
            });
            Thread rr = Thread.ofPlatform().start(() -> {
                for (long i = 1; i <= writes; i++) owner.set(right, checked(i * 3));
            });
            Thread pusher = Thread.ofPlatform().start(() -> {
                long lastLeft = 0;
                long lastRight = 0;
                do {
                    owner.pushRow(List.of(B));
                    long lw = peer.get(A, left);
                    long rw = peer.get(A, right);
                    if (!intact(lw) || !intact(rw)) problem.compareAndSet(null, "torn word: " + Long.toHexString(lw) + " / " + Long.toHexString(rw));
                    if ((lw >>> 32) < lastLeft || (rw >>> 32) < lastRight) problem.compareAndSet(null, "a field went back");
                    lastLeft = lw >>> 32;
                    lastRight = rw >>> 32;
                } while (writing.get());
            });
            l.join();
            rr.join();
            writing.set(false);
            pusher.join();
            owner.pushRow(List.of(B));
            assertThat(problem.get()).isNull();
            assertThat(peer.get(A, left)).isEqualTo(checked(writes));
            assertThat(peer.get(A, right)).isEqualTo(checked(3L * writes));
        }
    }
}
