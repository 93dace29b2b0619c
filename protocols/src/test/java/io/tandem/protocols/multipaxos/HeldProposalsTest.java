package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A replica's held proposals and chosen claims (session 21): a held value counts as chosen only under a claim of its own ballot. */
class HeldProposalsTest {
    private static final Ballot B1 = new Ballot(1, 0);
    private static final Ballot B2 = new Ballot(2, 1);

    private static Value command(long id) {
        return new Value.Command(NodeId.of("n1"), id, ClientRequest.Session.NONE, new byte[] {(byte) id});
    }

    private static List<Value> run(long firstId, int n) {
        List<Value> values = new ArrayList<>();
        for (int i = 0; i < n; i++) values.add(command(firstId + i));
        return values;
    }

    @Test
    void aHeldValueIsChosenOnlyUnderAClaimOfItsBallotThatCoversItsSlot() {
        HeldProposals held = new HeldProposals(64);
        held.hold(B1, 10, run(100, 5), 0); // slots 10..14 at B1
        assertThat(held.chosen(10)).as("no claim yet").isNull();
        assertThat(held.claim(B1, 12)).isTrue();
        assertThat(held.chosen(10)).isEqualTo(command(100));
        assertThat(held.chosen(12)).isEqualTo(command(102));
        assertThat(held.chosen(13)).as("beyond the claim").isNull();
        assertThat(held.chosen(9)).as("not held").isNull();
        // A newer leader's claim replaces the old one: B1's values are not B2's to claim.
        assertThat(held.claim(B2, 20)).isTrue();
        assertThat(held.chosen(10)).as("held at B1, claimed at B2").isNull();
        assertThat(held.claimThrough()).isEqualTo(20);
        assertThat(held.claim(B1, 30)).as("an older ballot's claim is ignored").isFalse();
        assertThat(held.claimThrough()).isEqualTo(20);
        held.hold(B2, 13, run(200, 2), 0);
        assertThat(held.chosen(13)).isEqualTo(command(200));
        assertThat(held.chosen(12)).isNull();
        assertThat(held.claim(B2, 0)).as("0 is no claim").isFalse();
    }

    @Test
    void theHigherBallotsProposalStaysAndExecutedSlotsAreSkippedAndForgotten() {
        HeldProposals held = new HeldProposals(64);
        held.hold(B2, 5, run(500, 3), 0);
        held.hold(B1, 5, run(100, 3), 0); // a late Accept of an older leader
        held.claim(B2, 7);
        assertThat(held.chosen(5)).isEqualTo(command(500));
        held.hold(B2, 8, run(800, 2), 8); // slot 8 executed already: not held
        held.claim(B2, 9);
        assertThat(held.chosen(8)).isNull();
        assertThat(held.chosen(9)).isEqualTo(command(801));
        held.forget(9);
        assertThat(held.chosen(9)).isNull();
        held.forget(70); // another slot's cell (70 & 63 == 6): nothing happens to slot 6
        assertThat(held.chosen(6)).isEqualTo(command(501));
    }

    /**
     * Against a model that keeps every proposal by (slot, ballot): over random holds and claims by several ballots in
     * any order, whatever the ring answers is the model's value for that slot at the claim's ballot (never another
     * ballot's, never a slot beyond the claim); a miss is allowed (the ring lost the cell to another slot or a higher ballot).
     */
    @Test
    void theRingNeverAnswersWhatTheModelWouldNot() {
        for (int seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            HeldProposals held = new HeldProposals(32);
            Map<Long, Map<Ballot, Value>> model = new HashMap<>();
            Ballot claimBallot = Ballot.ZERO;
            long claimThrough = 0;
            for (int op = 0; op < 5_000; op++) {
                Ballot b = new Ballot(1 + random.nextInt(4), random.nextInt(3));
                if (random.nextInt(3) == 0) {
                    long through = random.nextInt(400);
                    boolean taken = held.claim(b, through);
                    if (through > 0 && !b.lessThan(claimBallot)) {
                        claimThrough = b.equals(claimBallot) ? Math.max(claimThrough, through) : through;
                        claimBallot = b;
                    }
                    assertThat(taken).isEqualTo(through > 0 && held.claimBallot().equals(b));
                } else {
                    long first = 1 + random.nextInt(380);
                    List<Value> values = run(random.nextInt(1_000_000), 1 + random.nextInt(16));
                    held.hold(b, first, values, 0);
                    for (int k = 0; k < values.size(); k++) model.computeIfAbsent(first + k, s -> new HashMap<>()).put(b, values.get(k));
                }
                assertThat(held.claimBallot()).isEqualTo(claimBallot);
                assertThat(held.claimThrough()).isEqualTo(claimThrough);
                for (long slot = 1; slot <= 400; slot++) {
                    Value v = held.chosen(slot);
                    if (v == null) continue;
                    assertThat(slot).isLessThanOrEqualTo(claimThrough);
                    Map<Ballot, Value> atSlot = model.get(slot);
                    assertThat(atSlot).isNotNull();
                    assertThat(atSlot.get(claimBallot)).as("seed %d op %d slot %d", seed, op, slot).isEqualTo(v); // the claim's ballot's latest proposal
                }
            }
        }
    }
}
