package io.tandem.protocols.vsync.rdmc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.protocols.vsync.rdmc.Schedule.Algorithm;
import io.tandem.protocols.vsync.rdmc.Schedule.Transfer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** derecho.md §9.1 T8: the schedules' properties and step counts, simulated without I/O. */
class ScheduleTest {

    /** The step count each algorithm promises (derecho.md §3.3's table). */
    private static int expectedSteps(Algorithm a, int n, int b) {
        if (n == 1) return 0;
        int ceilLog2 = 32 - Integer.numberOfLeadingZeros(n - 1);
        return switch (a) {
            case SEQUENTIAL -> b * (n - 1);
            case CHAIN -> b + n - 2;
            case TREE -> b * ceilLog2;
            case BINOMIAL_PIPELINE -> b + ceilLog2 - 1; // B + d − 1 for n = 2^d, B + d otherwise
        };
    }

    /**
     * Replays a schedule and checks the telephone model: per step each member sends at most one block
     * and receives at most one; it sends only blocks it holds from an earlier step; nobody receives a
     * block twice; at the end every member holds every block. Answers the first violation, or null.
     */
    static String violation(Schedule s) {
        int n = s.members();
        int b = s.blocks();
        BitSet[] has = new BitSet[n];
        for (int i = 0; i < n; i++) has[i] = new BitSet(b);
        has[0].set(0, b);
        for (int t = 0; t < s.steps(); t++) {
            BitSet senders = new BitSet();
            BitSet receivers = new BitSet();
            List<Transfer> arriving = new ArrayList<>();
            for (Transfer x : s.step(t)) {
                if (x.from() < 0 || x.from() >= n || x.to() < 0 || x.to() >= n || x.block() < 0 || x.block() >= b) return "step " + t + ": out of range " + x;
                if (senders.get(x.from())) return "step " + t + ": member " + x.from() + " sends twice";
                if (receivers.get(x.to())) return "step " + t + ": member " + x.to() + " receives twice";
                senders.set(x.from());
                receivers.set(x.to());
                if (!has[x.from()].get(x.block())) return "step " + t + ": member " + x.from() + " sends block " + x.block() + " it does not hold";
                if (has[x.to()].get(x.block())) return "step " + t + ": member " + x.to() + " receives block " + x.block() + " again";
                arriving.add(x);
            }
            for (Transfer x : arriving) has[x.to()].set(x.block()); // received blocks are forwarded from the next step on
        }
        for (int i = 0; i < n; i++) {
            if (has[i].cardinality() != b) return "member " + i + " ends with " + has[i].cardinality() + " of " + b + " blocks";
        }
        return null;
    }

    /** The whole sweep of T8 (n = 1..64 × B = 1..100) with {@code -Drdmc.schedules.full=true}; by default every n with B ≤ 12 and a few larger B. */
    private static final boolean FULL = Boolean.getBoolean("rdmc.schedules.full");

    @Test
    void everyAlgorithmKeepsTheTelephoneModelAndItsStepCountForUpToSixtyFourMembers() {
        for (Algorithm a : Algorithm.values()) {
            for (int n = 1; n <= 64; n++) {
                for (int b = 1; b <= 100; b++) {
                    if (!FULL && b > 12 && b != 31 && b != 64 && b != 100) continue;
                    if (!FULL && a == Algorithm.SEQUENTIAL && n * b > 2_000) continue; // B·(n−1) steps: the shape is the same, the table long
                    Schedule s = Schedule.of(a, n, b);
                    assertThat(violation(s)).as("%s", s).isNull();
                    assertThat(s.steps()).as("%s", s).isEqualTo(expectedSteps(a, n, b));
                }
            }
        }
    }

    @Test
    void theBinomialPipelineWithTwinsFinishesInBPlusDForMembersThatAreNotAPowerOfTwo() {
        // The lower bound is B + ⌈log₂ n⌉ − 1 for any schedule of the telephone model: the sender hands
        // out one block per step, and the last block needs ⌈log₂ n⌉ − 1 more steps to double its holders.
        Schedule five = Schedule.of(Algorithm.BINOMIAL_PIPELINE, 5, 3);
        assertThat(five.steps()).isEqualTo(3 + 2);
        assertThat(Schedule.of(Algorithm.BINOMIAL_PIPELINE, 3, 1).steps()).isEqualTo(2);
        assertThat(Schedule.of(Algorithm.BINOMIAL_PIPELINE, 8, 10).steps()).isEqualTo(10 + 3 - 1);
        // Member 2^d − 1 + v is vertex v's twin.
        assertThat(Schedule.twinOf(1, 4)).isEqualTo(4);
        assertThat(five.describe()).startsWith("BINOMIAL_PIPELINE(n=5, B=3, 5 steps)\n0: 0->");
    }

    @Test
    void queriesByMemberAgreeWithTheTable() {
        Schedule s = Schedule.of(Algorithm.BINOMIAL_PIPELINE, 6, 7);
        for (int rank = 0; rank < 6; rank++) {
            int sent = 0;
            int received = 0;
            for (int t = 0; t < s.steps(); t++) {
                final int step = t;
                final int r = rank;
                sent += s.outgoing(rank, t).map(x -> {
                    assertThat(x.from()).isEqualTo(r);
                    assertThat(s.step(step)).contains(x);
                    return 1;
                }).orElse(0);
                received += s.incoming(rank, t).map(x -> 1).orElse(0);
            }
            assertThat(s.transfersOf(rank, true)).hasSize(sent);
            assertThat(s.transfersOf(rank, false)).hasSize(received).hasSize(rank == 0 ? 0 : 7);
        }
    }

    @Test
    void handingTheOldestMissingBlockInsteadOfTheNewestStallsThePipeline() {
        // The rule the schedule depends on: with the oldest missing block, blocks queue behind each
        // other and 8 members need more than B + 2 steps. This twin of the rule lives here, in test code.
        int n = 8;
        int b = 20;
        int d = 3;
        BitSet[] has = new BitSet[n];
        for (int i = 0; i < n; i++) has[i] = new BitSet(b);
        has[0].set(0, b);
        int steps = 0;
        for (int t = 0; ; t++) {
            boolean done = true;
            for (int i = 1; i < n; i++) done &= has[i].cardinality() == b;
            if (done) break;
            List<Transfer> step = new ArrayList<>();
            for (int u = 0; u < n; u++) {
                int partner = u ^ (1 << (t % d));
                if (partner == 0) continue;
                BitSet lack = (BitSet) has[u].clone();
                lack.andNot(has[partner]);
                int block = u == 0 && t < b ? t : lack.nextSetBit(0);
                if (block >= 0) step.add(new Transfer(u, partner, block));
            }
            for (Transfer x : step) has[x.to()].set(x.block());
            steps++;
        }
        assertThat(steps).isGreaterThan(b + d - 1);
        assertThat(Schedule.of(Algorithm.BINOMIAL_PIPELINE, n, b).steps()).isEqualTo(b + d - 1);
    }

    @Test
    void badShapesAreRefused() {
        assertThatThrownBy(() -> Schedule.of(Algorithm.CHAIN, 0, 1)).hasMessage("members must be >= 1, was 0");
        assertThatThrownBy(() -> Schedule.of(Algorithm.CHAIN, 3, 0)).hasMessage("blocks must be >= 1, was 0");
        assertThat(Schedule.of(Algorithm.BINOMIAL_PIPELINE, 1, 5).steps()).isZero();
    }
}
