package io.tandem.protocols.multipaxos;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Main 96fd279b's SlotWindow (a TreeMap by slot), kept as the reference the ring is compared with ({@link SlotWindowTest}). The leader's Phase 2 state: the slots it proposed in its ballot and has not yet seen chosen, in
 * a bounded window (pipelining, spec §1.4). Every slot below {@link #firstUnchosen()} is chosen; at
 * most {@code capacity} new proposals are outstanding beyond it (values re-proposed after Phase 1
 * may exceed it, since they must be proposed before anything new). A slot is chosen once a write
 * quorum of acceptors voted for it in this ballot. Pure: no I/O, time is passed in.
 */
final class TreeSlotWindow {
    /** One slot's proposal and the acceptors (a bit mask) that voted for it. */
    static final class Proposal {
        final long slot;
        final Value value;
        final long proposedAt;
        long voters;
        boolean chosen;
        /** Chosen because an acceptor reported it already chosen and forgotten (no value to announce). */
        boolean chosenElsewhere;
        long chosenAt = -1;
        boolean reportedOverdue;

        Proposal(long slot, Value value, long proposedAt) {
            this.slot = slot;
            this.value = value;
            this.proposedAt = proposedAt;
        }

        @Override
        public String toString() {
            return slot + (chosen ? "(chosen)" : "") + "=" + value;
        }
    }

    /** Consecutive proposals to send to one acceptor in one Phase 2a. */
    record Run(long firstSlot, List<Value> values, int bytes, long requestId) {
        long lastSlot() {
            return firstSlot + values.size() - 1;
        }
    }

    private final QuorumSystem quorums;
    private final int capacity;
    private final TreeMap<Long, Proposal> proposals = new TreeMap<>();
    private long firstUnchosen;
    private long nextSlot;
    private long newProposalsFrom;
    /** Every slot up to here was reported chosen by an acceptor (possibly without a proposal of ours). */
    private long chosenElsewhereThrough;

    /** An empty window whose first free slot is {@code startSlot}: every slot below it is chosen. */
    TreeSlotWindow(QuorumSystem quorums, int capacity, long startSlot) {
        if (startSlot < 1) throw new IllegalArgumentException("slots start at 1, was " + startSlot);
        this.quorums = quorums;
        this.capacity = capacity;
        this.firstUnchosen = startSlot;
        this.nextSlot = startSlot;
        this.newProposalsFrom = startSlot;
    }

    long firstUnchosen() {
        return firstUnchosen;
    }

    long nextSlot() {
        return nextSlot;
    }

    int outstanding() {
        return proposals.size();
    }

    /**
     * Room for a new command: fewer than {@code capacity} new proposals outstanding, and fewer than
     * twice that counting values still being re-proposed after Phase 1.
     */
    boolean hasRoom() {
        return nextSlot - Math.max(firstUnchosen, newProposalsFrom) < capacity && nextSlot - firstUnchosen < 2L * capacity;
    }

    /**
     * Proposes a value recovered by Phase 1 (or a no-op); unlike {@link #propose} it ignores the
     * window bound, because recovered slots must be decided before anything new. The slot is the next free one.
     */
    long proposeRecovered(Value value, long now) {
        long slot = add(value, now);
        newProposalsFrom = nextSlot;
        return slot;
    }

    /** Proposes a new value in the next free slot; the caller checked {@link #hasRoom()}. */
    long propose(Value value, long now) {
        return add(value, now);
    }

    private long add(Value value, long now) {
        long slot = nextSlot++;
        proposals.put(slot, new Proposal(slot, value, now));
        return slot;
    }

    Proposal get(long slot) {
        return proposals.get(slot);
    }

    /**
     * Records that acceptor {@code bit} voted for {@code slot} in this ballot; returns the proposal if
     * that vote got it chosen, else null.
     */
    Proposal vote(long slot, long bit, long now) {
        Proposal p = proposals.get(slot);
        if (p == null || p.chosen) return null;
        p.voters |= bit;
        if (!quorums.isWriteQuorum(p.voters)) return null;
        p.chosen = true;
        p.chosenAt = now;
        return p;
    }

    /**
     * An acceptor reported every slot up to {@code slot} chosen (and its votes forgotten): those
     * proposals are decided without us learning the votes; returns how many it settled.
     */
    int markChosenThrough(long slot, long now) {
        int settled = 0;
        for (Proposal p : proposals.headMap(slot, true).values()) {
            if (p.chosen) continue;
            p.chosen = true;
            p.chosenElsewhere = true;
            p.chosenAt = now;
            settled++;
        }
        chosenElsewhereThrough = Math.max(chosenElsewhereThrough, slot);
        if (slot >= nextSlot) {
            nextSlot = slot + 1;
            newProposalsFrom = Math.max(newProposalsFrom, nextSlot);
        }
        return settled;
    }

    /** Removes and returns the chosen prefix, advancing {@link #firstUnchosen()}. */
    List<Proposal> advance() {
        List<Proposal> done = new ArrayList<>();
        while (true) {
            Proposal p = proposals.get(firstUnchosen);
            if (p == null) {
                if (firstUnchosen <= chosenElsewhereThrough && firstUnchosen < nextSlot) { // skipped over by markChosenThrough
                    firstUnchosen++;
                    continue;
                }
                // Slots below nextSlot always have a proposal; past it nothing is outstanding.
                if (firstUnchosen < nextSlot) throw new IllegalStateException("slot " + firstUnchosen + " below " + nextSlot + " has no proposal");
                return done;
            }
            if (!p.chosen) return done;
            proposals.remove(firstUnchosen);
            done.add(p);
            firstUnchosen++;
        }
    }

    /**
     * The next consecutive proposals to send to acceptor {@code bit}, after slot {@code after}: it
     * starts at the first undecided slot the acceptor has not voted for and stops at a decided slot
     * or at the batch limits (a single value larger than {@code maxBytes} still goes alone).
     * Returns null if there is nothing to send.
     */
    Run nextRun(long after, long bit, int maxSlots, int maxBytes) {
        NavigableMap<Long, Proposal> tail = proposals.tailMap(Math.max(after, firstUnchosen - 1), false);
        List<Value> values = null;
        long first = -1;
        int bytes = 0;
        long requestId = 0;
        for (Proposal p : tail.values()) {
            if (values == null) {
                if (p.chosen || (p.voters & bit) != 0) continue;
                values = new ArrayList<>();
                first = p.slot;
            } else if (p.chosen || p.slot != first + values.size() || values.size() >= maxSlots || bytes + p.value.weight() > maxBytes) {
                break;
            }
            values.add(p.value);
            bytes += p.value.weight();
            if (requestId == 0) requestId = p.value.requestId();
        }
        return values == null ? null : new Run(first, values, bytes, requestId);
    }

    /** Undecided proposals older than {@code deadline} nanoseconds that were not reported yet (each is reported once). */
    int newlyOverdue(long now, long deadline) {
        int n = 0;
        for (Proposal p : proposals.values()) {
            if (now - p.proposedAt < deadline) break; // proposals are in slot order, which is proposal order
            if (!p.chosen && !p.reportedOverdue) {
                p.reportedOverdue = true;
                n++;
            }
        }
        return n;
    }

    /** The oldest undecided proposal made at or before {@code proposedBy} that acceptor {@code bit} has not voted for, or null. */
    Proposal oldestUndecidedWithout(long bit, long proposedBy) {
        for (Proposal p : proposals.values()) {
            if (p.proposedAt - proposedBy > 0) return null; // proposals are in slot order, which is proposal order
            if (!p.chosen && (p.voters & bit) == 0) return p;
        }
        return null;
    }

    @Override
    public String toString() {
        return "window[" + firstUnchosen + ".." + (nextSlot - 1) + ", " + proposals.size() + " outstanding]";
    }
}
