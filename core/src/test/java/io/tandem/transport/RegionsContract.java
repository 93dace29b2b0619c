package io.tandem.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.PushCompletion;
import io.tandem.engine.Region;
import io.tandem.engine.Regions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The memory-region contract (DESIGN §5, derecho.md §2.5 and §8.4) that every transport and the
 * simulator keep, through the engine's {@link Regions}: a push lands only at the members it names;
 * a completion means that push and every earlier one to that member landed; pushes of one writer
 * land in order and no aligned word is ever seen half-written; a frozen member's pushes no longer
 * land; a push to a crashed member does not land and completes as not applied; a writer that crashes
 * mid-push leaves whole words behind. Subclasses give a group of n1, n2, n3 ({@link Fixture}).
 */
public abstract class RegionsContract {
    protected static final NodeId N1 = NodeId.of("n1");
    protected static final NodeId N2 = NodeId.of("n2");
    protected static final NodeId N3 = NodeId.of("n3");
    protected static final List<NodeId> MEMBERS = List.of(N1, N2, N3);
    protected static final int REGION_BYTES = 512;
    private static final int WORDS = REGION_BYTES / 8;

    /** A group of n1, n2 and n3, over a real transport (real threads) or the simulator (events run by the test). */
    public interface Fixture extends AutoCloseable {
        /** The regions of {@code node} as its engine sees them. */
        Regions regions(NodeId node);

        /** Waits (real time, with a deadline) or runs simulated events until {@code condition} holds; fails otherwise. */
        void awaitUntil(String what, BooleanSupplier condition);

        /** Lets pushes travel: nothing with real threads, a few events in the simulator. */
        void letTravel();

        /**
         * Runs {@code check} over and over while the test goes on: on its own thread with a real
         * transport (truly concurrent with the pushes), after every event in the simulator; until
         * {@link #stopObserving}.
         */
        void observe(Runnable check);

        void stopObserving();

        /** Crashes {@code node} (closes its transport): it neither receives nor sends from now on. */
        void crash(NodeId node);

        /** How many write-and-push rounds the ordering test runs. */
        int rounds();

        @Override
        void close();
    }

    protected abstract Fixture start();

    protected Fixture f;
    private final List<PushCompletion> completions = new ArrayList<>();

    @BeforeEach
    void startFixture() {
        f = start();
        for (NodeId n : MEMBERS) f.regions(n).register("sst", REGION_BYTES, Regions.Notice.POLL);
    }

    @AfterEach
    void closeFixture() {
        if (f != null) f.close();
    }

    /** Both halves carry the round: a word mixing two writes has unequal halves. */
    protected static long pattern(long round) {
        return (round << 32) | round;
    }

    protected Region sst(NodeId node) {
        return f.regions(node).region("sst");
    }

    /** The completion of {@code pushId} at {@code target}, once reported to n1. */
    protected PushCompletion awaitCompletion(NodeId writer, long pushId, NodeId target) {
        PushCompletion[] found = new PushCompletion[1];
        f.awaitUntil("completion of push " + pushId + " at " + target, () -> {
            f.regions(writer).pollCompletions(completions::add);
            for (PushCompletion c : completions) {
                if (c.pushId() == pushId && c.target().equals(target)) found[0] = c;
            }
            return found[0] != null;
        });
        return found[0];
    }

    @Test
    void aPushToASubsetLandsOnlyAtTheMembersItNames() {
        sst(N1).setLong(0, 41);
        sst(N1).push(0, 8, List.of(N2));
        f.awaitUntil("n2 sees the write", () -> sst(N2).getLong(N1, 0) == 41);
        // A later push to n3 with completion: n3 applies pushes in order, so had the first reached it, it would show now.
        sst(N1).setLong(8, 42);
        long fence = sst(N1).pushWithCompletion(8, 8, List.of(N3));
        assertThat(awaitCompletion(N1, fence, N3).applied()).isTrue();
        assertThat(sst(N3).getLong(N1, 8)).isEqualTo(42);
        assertThat(sst(N3).getLong(N1, 0)).as("n3 was not a target of the first push").isZero();
        assertThat(sst(N2).getLong(N1, 8)).as("n2 was not a target of the second push").isZero();
        assertThat(sst(N1).getLong(N1, 0)).as("a node reads its own row through of(self)").isEqualTo(41);
    }

    @Test
    void aCompletionMeansThePushAndEveryEarlierOneLandedAtThatMember() {
        for (int w = 0; w < WORDS; w++) {
            sst(N1).setLong(w * 8, pattern(w + 1));
            sst(N1).push(w * 8, 8, Set.of(N2, N3)); // no completion asked
        }
        long fence = sst(N1).pushWithCompletion(0, 8, List.of(N2, N3));
        for (NodeId target : List.of(N2, N3)) {
            PushCompletion c = awaitCompletion(N1, fence, target);
            assertThat(c.applied()).isTrue();
            assertThat(c.region()).isEqualTo("sst");
            for (int w = 0; w < WORDS; w++) assertThat(sst(target).getLong(N1, w * 8)).as("word " + w + " at " + target).isEqualTo(pattern(w + 1));
        }
    }

    @Test
    void pushesOfOneWriterLandInOrderAndNoWordIsEverSeenTorn() {
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        f.observe(() -> {
            for (NodeId reader : List.of(N2, N3)) {
                // Word 1 is pushed after word 0 in every round: whoever sees round r in word 1 sees at least r in word 0 (R2).
                long second = sst(reader).getLong(N1, 8);
                long first = sst(reader).getLong(N1, 0);
                if ((first >>> 32) != (first & 0xFFFF_FFFFL) || (second >>> 32) != (second & 0xFFFF_FFFFL)) {
                    violations.add(reader + ": torn word " + Long.toHexString(first) + " / " + Long.toHexString(second));
                }
                if ((second & 0xFFFF_FFFFL) > (first & 0xFFFF_FFFFL)) violations.add(reader + ": word 1 at round " + (second & 0xFFFF_FFFFL) + " before word 0 at " + (first & 0xFFFF_FFFFL));
                // Whole-range pushes: every word of one push carries its round; a reader may see a mix of rounds (R4), never a torn word (R3).
                for (int w = 2; w < WORDS; w++) {
                    long word = sst(reader).getLong(N1, w * 8);
                    if ((word >>> 32) != (word & 0xFFFF_FFFFL)) violations.add(reader + ": torn word " + Long.toHexString(word) + " at " + w);
                }
            }
        });
        int rounds = f.rounds();
        for (long r = 1; r <= rounds; r++) {
            sst(N1).setLong(0, pattern(r));
            sst(N1).push(0, 8, MEMBERS);
            sst(N1).setLong(8, pattern(r));
            sst(N1).push(8, 8, MEMBERS);
            for (int w = 2; w < WORDS; w++) sst(N1).setLong(w * 8, pattern(r));
            sst(N1).push(16, REGION_BYTES - 16, MEMBERS);
            f.letTravel();
        }
        long fence = sst(N1).pushWithCompletion(0, 8, List.of(N2, N3));
        awaitCompletion(N1, fence, N2);
        awaitCompletion(N1, fence, N3);
        f.stopObserving();
        assertThat(violations).isEmpty();
        for (NodeId reader : List.of(N2, N3)) {
            for (int w = 0; w < WORDS; w++) assertThat(sst(reader).getLong(N1, w * 8)).isEqualTo(pattern(rounds));
        }
    }

    @Test
    void aFrozenMembersPushesNoLongerLand() {
        sst(N1).setLong(0, 1);
        long first = sst(N1).pushWithCompletion(0, 8, List.of(N2, N3));
        assertThat(awaitCompletion(N1, first, N2).applied()).isTrue();
        assertThat(awaitCompletion(N1, first, N3).applied()).isTrue();

        f.regions(N2).freeze(N1);
        assertThat(f.regions(N2).isFrozen(N1)).isTrue();
        assertThat(f.regions(N3).isFrozen(N1)).isFalse();
        sst(N1).setLong(0, 2);
        long second = sst(N1).pushWithCompletion(0, 8, List.of(N2, N3));
        assertThat(awaitCompletion(N1, second, N3).applied()).isTrue();
        assertThat(awaitCompletion(N1, second, N2).applied()).as("n2 received it, and dropped it by its own rule").isTrue();
        assertThat(sst(N3).getLong(N1, 0)).isEqualTo(2);
        assertThat(sst(N2).getLong(N1, 0)).as("n2 froze n1's row at the value it had").isEqualTo(1);
        // n2's own pushes still land: freezing is about what n2 reads, not what it writes.
        sst(N2).setLong(0, 7);
        long fromN2 = sst(N2).pushWithCompletion(0, 8, List.of(N1));
        assertThat(awaitCompletion(N2, fromN2, N1).applied()).isTrue();
        assertThat(sst(N1).getLong(N2, 0)).isEqualTo(7);
    }

    @Test
    void aPushToACrashedMemberDoesNotLandAndCompletesAsNotApplied() {
        f.crash(N3);
        sst(N1).setLong(0, 5);
        long push = sst(N1).pushWithCompletion(0, 8, List.of(N2, N3));
        assertThat(awaitCompletion(N1, push, N2).applied()).isTrue();
        assertThat(awaitCompletion(N1, push, N3).applied()).isFalse();
        assertThat(sst(N2).getLong(N1, 0)).isEqualTo(5);
    }

    @Test
    void aWriterThatCrashesMidPushLeavesOnlyWholeWordsOfOneWriteOrTheOther() {
        for (int w = 0; w < WORDS; w++) sst(N1).setLong(w * 8, pattern(1));
        long first = sst(N1).pushWithCompletion(0, REGION_BYTES, List.of(N2, N3));
        awaitCompletion(N1, first, N2);
        awaitCompletion(N1, first, N3);
        Region n2 = sst(N2);
        Region n3 = sst(N3);
        for (int w = 0; w < WORDS; w++) sst(N1).setLong(w * 8, pattern(2));
        sst(N1).push(0, REGION_BYTES, List.of(N2, N3));
        f.crash(N1);
        // A push is a write per target: a crash may let it reach both, one or neither, but each copy holds whole words.
        for (int i = 0; i < 100; i++) f.letTravel();
        for (Region copy : List.of(n2, n3)) {
            for (int w = 0; w < WORDS; w++) assertThat(copy.getLong(N1, w * 8)).isIn(pattern(1), pattern(2));
        }
    }
}
