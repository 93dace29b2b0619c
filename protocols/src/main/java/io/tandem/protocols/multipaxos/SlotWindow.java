package io.tandem.protocols.multipaxos;

import java.util.ArrayList;
import java.util.List;

/**
 * The leader's Phase 2 state: the slots it proposed in its ballot and has not yet seen chosen, in
 * a bounded window (pipelining, spec §1.4). Every slot below {@link #firstUnchosen()} is chosen; at
 * most {@code capacity} new proposals are outstanding beyond it (values re-proposed after Phase 1
 * may exceed it, since they must be proposed before anything new). A slot is chosen once a write
 * quorum of acceptors voted for it in this ballot. Pure: no I/O, time is passed in.
 *
 * <p>The proposals live in a ring by slot (session 20, issue 25; was a {@code TreeMap<Long, Proposal>}, whose
 * inserts, removals and boxed keys were ~12 % of the leader's loop). Every proposal's slot lies in
 * {@code [firstUnchosen, highest]}, slots are handed out consecutively and leave only from the front
 * ({@link #advance()}), so a power-of-two array longer than that span holds each at {@code slot & mask} without
 * two sharing a cell; {@link #add} doubles the array when the span would reach its length (values recovered by
 * Phase 1 may exceed the window's capacity). A cell is cleared when its proposal leaves, and a lookup checks the
 * stored proposal's slot, so a cell never answers for another slot. Iterating {@code firstUnchosen..highest} in
 * slot order visits the proposals in the order the tree map did; slots with no proposal (skipped by
 * {@link #markChosenThrough}) are skipped as the map's iteration skipped them.
 */
final class SlotWindow {
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
    /** Proposals by {@code slot & (ring.length - 1)}; see the class comment. */
    private Proposal[] ring = new Proposal[64];
    private int count;
    /** The highest slot that has (or had) a proposal; no proposal lies above it. */
    private long highest;
    private long firstUnchosen;
    private long nextSlot;
    private long newProposalsFrom;
    /** Every slot up to here was reported chosen by an acceptor (possibly without a proposal of ours). */
    private long chosenElsewhereThrough;

    /** An empty window whose first free slot is {@code startSlot}: every slot below it is chosen. */
    SlotWindow(QuorumSystem quorums, int capacity, long startSlot) {
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
        return count;
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
        // Every live proposal is in [firstUnchosen, slot]: grow until the span from the lowest one fits, so no
        // two share a cell. (The lowest live one, not firstUnchosen: markChosenThrough may have moved nextSlot
        // far ahead of proposals that the caller's advance() has not removed yet; then the span is what counts.)
        if (slot - firstUnchosen >= ring.length) {
            long span = slot - lowestLive(slot) + 1;
            if (span > ring.length) grow(span);
        }
        ring[(int) (slot & (ring.length - 1))] = new Proposal(slot, value, now);
        count++;
        highest = slot;
        return slot;
    }

    /** The slot of the lowest proposal held, or {@code otherwise} if none is. */
    private long lowestLive(long otherwise) {
        if (count == 0) return otherwise;
        for (long s = firstUnchosen; s <= highest; s++) {
            if (get(s) != null) return s;
        }
        return otherwise;
    }

    /** Re-places the live proposals in a ring longer than {@code span}. */
    private void grow(long span) {
        if (span > 1 << 30) throw new IllegalStateException("window span " + span + " too large");
        int length = ring.length;
        while (length <= span) length <<= 1;
        Proposal[] bigger = new Proposal[length];
        for (Proposal p : ring) {
            if (p != null) bigger[(int) (p.slot & (length - 1))] = p;
        }
        ring = bigger;
    }

    Proposal get(long slot) {
        if (slot < firstUnchosen || slot > highest) return null;
        Proposal p = ring[(int) (slot & (ring.length - 1))];
        return p != null && p.slot == slot ? p : null;
    }

    private void remove(Proposal p) {
        ring[(int) (p.slot & (ring.length - 1))] = null;
        count--;
    }

    /**
     * Records that acceptor {@code bit} voted for {@code slot} in this ballot; returns the proposal if
     * that vote got it chosen, else null.
     */
    Proposal vote(long slot, long bit, long now) {
        Proposal p = get(slot);
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
        for (long s = firstUnchosen, end = Math.min(slot, highest); s <= end; s++) {
            Proposal p = get(s);
            if (p == null || p.chosen) continue;
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
            Proposal p = get(firstUnchosen);
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
            remove(p);
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
        List<Value> values = null;
        long first = -1;
        int bytes = 0;
        long requestId = 0;
        for (long s = Math.max(after + 1, firstUnchosen); s <= highest; s++) {
            Proposal p = get(s);
            if (p == null) {
                if (values == null) continue;
                break; // a gap ends a run (the map's next entry would not have been consecutive)
            }
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
        for (long s = firstUnchosen; s <= highest; s++) {
            Proposal p = get(s);
            if (p == null) continue;
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
        for (long s = firstUnchosen; s <= highest; s++) {
            Proposal p = get(s);
            if (p == null) continue;
            if (p.proposedAt - proposedBy > 0) return null; // proposals are in slot order, which is proposal order
            if (!p.chosen && (p.voters & bit) == 0) return p;
        }
        return null;
    }

    @Override
    public String toString() {
        return "window[" + firstUnchosen + ".." + (nextSlot - 1) + ", " + count + " outstanding]";
    }
}
