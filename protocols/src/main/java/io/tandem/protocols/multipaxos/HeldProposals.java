package io.tandem.protocols.multipaxos;

import java.util.List;

/**
 * What a replica on an acceptor's node learns from the Phase 2a messages that node receives (session 21): the
 * proposals, by slot, and the newest chosen claim of a leader ({@link MultiPaxosMessage.Accept#chosenThrough}
 * or {@link MultiPaxosMessage.ChosenThrough}). A held value is chosen once a claim of the ballot it was proposed
 * in covers its slot. Pure: no clock, no messages.
 *
 * <p>Why that is safe: a claim {@code (b, c)} is the leader of ballot {@code b} saying that every slot up to
 * {@code c} it proposed in {@code b} was chosen by a write quorum of votes at {@code b} for that proposal (the
 * leader stops claiming for the rest of the ballot once it settles a proposal any other way: see
 * {@code Leader#decided}). A ballot has one proposer and it proposes at most one value per slot in it, so a value
 * held at ballot {@code b} for slot {@code s <= c} is the chosen value. A value held at another ballot is never
 * taken on that claim, whatever its slot.
 *
 * <p>The proposals are kept in a ring by slot (bounded memory; a slot another took the place of is a miss, which
 * only means the replica learns that slot by catch-up, as a lost {@code Chosen} did before). Of two proposals for
 * one slot the higher ballot's is kept: a later leader's claims are the ones still coming.
 */
final class HeldProposals {
    private final long[] slots;
    private final Ballot[] ballots;
    private final Value[] values;
    private Ballot claimBallot = Ballot.ZERO;
    private long claimThrough;

    /** @param capacity slots held at most (rounded up to a power of two) */
    HeldProposals(int capacity) {
        int length = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
        slots = new long[length];
        ballots = new Ballot[length];
        values = new Value[length];
    }

    /** Holds the proposals of a Phase 2a at {@code ballot} from {@code firstSlot} on; slots up to {@code executed} are done and skipped. */
    void hold(Ballot ballot, long firstSlot, List<Value> run, long executed) {
        for (int k = 0, n = run.size(); k < n; k++) {
            long slot = firstSlot + k;
            if (slot <= executed) continue;
            int at = (int) (slot & (slots.length - 1));
            if (slots[at] == slot && ballots[at] != null && ballots[at].greaterThan(ballot)) continue;
            slots[at] = slot;
            ballots[at] = ballot;
            values[at] = run.get(k);
        }
    }

    /**
     * Takes a claim in: the newest ballot's claim replaces an older ballot's, an older ballot's is ignored.
     * Returns true if it was taken (the caller then knows every slot up to {@code through} is chosen).
     */
    boolean claim(Ballot ballot, long through) {
        if (through <= 0 || ballot.lessThan(claimBallot)) return false;
        if (ballot.greaterThan(claimBallot)) {
            claimBallot = ballot;
            claimThrough = through;
        } else {
            claimThrough = Math.max(claimThrough, through);
        }
        return true;
    }

    /** The chosen value of {@code slot} if a held proposal and the claim of its ballot say so, else null. */
    Value chosen(long slot) {
        if (slot > claimThrough) return null;
        int at = (int) (slot & (slots.length - 1));
        return slots[at] == slot && claimBallot.equals(ballots[at]) ? values[at] : null;
    }

    /** Slot {@code slot} was executed: its value need not stay reachable until another slot takes its place. */
    void forget(long slot) {
        int at = (int) (slot & (slots.length - 1));
        if (slots[at] != slot) return;
        slots[at] = 0;
        ballots[at] = null;
        values[at] = null;
    }

    Ballot claimBallot() {
        return claimBallot;
    }

    long claimThrough() {
        return claimThrough;
    }
}
