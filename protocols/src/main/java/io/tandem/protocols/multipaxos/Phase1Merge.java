package io.tandem.protocols.multipaxos;

import io.tandem.protocols.multipaxos.MultiPaxosMessage.Vote;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Phase 1's decision (spec §1.3, §1.6): from the votes a read quorum of acceptors reported, the
 * value the new leader must propose in each open slot is the one voted at the highest ballot, or a
 * no-op where nobody in the quorum voted. Slots up to the highest garbage-collection point any
 * acceptor reported are already chosen (and executed by replicas), so they are skipped. Pure.
 */
final class Phase1Merge {
    private final long fromSlot;
    private long maxGcSlot;
    private final TreeMap<Long, Vote> highest = new TreeMap<>();

    /** @param fromSlot the first slot Phase 1 covers (every slot below it is known chosen) */
    Phase1Merge(long fromSlot) {
        if (fromSlot < 1) throw new IllegalArgumentException("slots start at 1, was " + fromSlot);
        this.fromSlot = fromSlot;
    }

    /** Adds one acceptor's report (one page of it). */
    void add(long gcSlot, List<Vote> votes) {
        maxGcSlot = Math.max(maxGcSlot, gcSlot);
        for (Vote v : votes) {
            if (v.slot() < fromSlot) continue;
            Vote known = highest.get(v.slot());
            if (known == null || v.ballot().greaterThan(known.ballot())) highest.put(v.slot(), v);
        }
    }

    /** The first slot the new leader proposes in. */
    long startSlot() {
        return Math.max(fromSlot, maxGcSlot + 1);
    }

    /** The last slot any acceptor of the quorum voted in, or {@code startSlot() - 1}. */
    long lastVotedSlot() {
        return highest.isEmpty() ? startSlot() - 1 : Math.max(startSlot() - 1, highest.lastKey());
    }

    /** The value to propose in each slot of {@code [startSlot(), lastVotedSlot()]}, in order. */
    List<Value> safeValues() {
        List<Value> values = new ArrayList<>();
        for (long s = startSlot(); s <= lastVotedSlot(); s++) {
            Vote v = highest.get(s);
            values.add(v == null ? Value.NOOP : v.value());
        }
        return values;
    }
}
