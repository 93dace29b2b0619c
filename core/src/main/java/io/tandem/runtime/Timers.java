package io.tandem.runtime;

import io.tandem.engine.TimerKey;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The timers of one engine, keyed by {@link TimerKey}: re-arming a key replaces its deadline,
 * cancelled and replaced entries are skipped lazily. Used only from the node's loop thread.
 *
 * <p>Each armed key has a {@link Slot} holding the generation of its live arming; queued entries point at their
 * slot, so checking whether an entry is still live reads a field rather than looking the key up in a map (raft20:
 * the lookups were most of the timers' cost on a follower's loop, see {@link #hash}). A slot lives while its key is
 * armed: keys with a component (Copilot's per-slot timers) come and go without the table growing.
 */
final class Timers {
    /** A key's live arming: {@link #generation} 0 once it fired or was cancelled (then the slot leaves the table). */
    private static final class Slot {
        final TimerKey key;
        final int hash;
        long generation;

        Slot(TimerKey key, int hash) {
            this.key = key;
            this.hash = hash;
        }
    }

    private record Armed(long deadline, long generation, Slot slot) {
        boolean live() {
            return slot.generation == generation;
        }
    }

    /** Open addressing, linear probing, at most half full; removal shifts back (no tombstones). */
    private Slot[] table = new Slot[16];
    private int armed;
    /**
     * Keys armed with no delay, in arming order: due at the next {@link #due} whatever the clock says, so arming one
     * reads no clock and sorts nothing (raft19: the leader arms its replication timer this way on nearly every loop
     * turn, and {@code Context.schedule} was 6 % of its loop's CPU samples at 64 clients, a clock read per turn on this VM
     * costing 65-100 ns). Checked against the key's slot like the queue, so re-arming or cancelling wins.
     */
    private final ArrayList<Armed> immediate = new ArrayList<>();
    private final PriorityQueue<Armed> queue = new PriorityQueue<>((a, b) -> a.deadline != b.deadline ? Long.compare(a.deadline, b.deadline) : Long.compare(a.generation, b.generation));
    private long nextGeneration;

    void schedule(TimerKey key, long deadline) {
        Slot slot = arm(key);
        queue.add(new Armed(deadline, slot.generation, slot));
    }

    /** Arms {@code key} to fire at the next {@link #due}, replacing any deadline it had. */
    void scheduleNow(TimerKey key) {
        Slot slot = arm(key);
        immediate.add(new Armed(0, slot.generation, slot));
    }

    void cancel(TimerKey key) {
        int h = hash(key);
        Slot slot = find(key, h);
        if (slot != null) disarm(slot);
    }

    /**
     * Removes and returns the keys due at {@code now}: those with a deadline, earliest first, then those armed with no
     * delay, in arming order (a no-delay key was armed at or before {@code now}, so it is due with the others; it comes
     * last because it was armed during this turn or the one before, after the deadlines that passed meanwhile).
     */
    List<TimerKey> due(long now) {
        List<TimerKey> fired = null;
        while (!queue.isEmpty() && queue.peek().deadline - now <= 0) {
            Armed a = queue.poll();
            if (!a.live()) continue;
            disarm(a.slot);
            if (fired == null) fired = new ArrayList<>(4);
            fired.add(a.slot.key);
        }
        if (!immediate.isEmpty()) {
            for (int i = 0; i < immediate.size(); i++) {
                Armed a = immediate.get(i);
                if (!a.live()) continue;
                disarm(a.slot);
                if (fired == null) fired = new ArrayList<>(4);
                fired.add(a.slot.key);
            }
            immediate.clear();
        }
        return fired == null ? List.of() : fired;
    }

    /** Nanoseconds until the next live deadline (purging dead entries), or {@code Long.MAX_VALUE}. */
    long nanosUntilNext(long now) {
        for (int i = 0; i < immediate.size(); i++) {
            if (immediate.get(i).live()) return 0;
        }
        while (!queue.isEmpty()) {
            Armed a = queue.peek();
            if (a.live()) return Math.max(0, a.deadline - now);
            queue.poll();
        }
        return Long.MAX_VALUE;
    }

    int size() {
        return armed;
    }

    /** Gives {@code key} a new generation (its earlier entries die), adding its slot if it was not armed. */
    private Slot arm(TimerKey key) {
        int h = hash(key);
        Slot slot = find(key, h);
        if (slot == null) {
            slot = new Slot(key, h);
            insert(slot);
            armed++;
        }
        slot.generation = ++nextGeneration;
        return slot;
    }

    private void disarm(Slot slot) {
        slot.generation = 0;
        remove(slot);
        armed--;
    }

    /**
     * The key's hash for the table. Timer keys are usually records without components ({@link TimerKey}), and every
     * such record's {@code hashCode} is 0: in a {@code HashMap} all of an engine's keys shared one bucket, and every
     * lookup called the records' {@code equals} (a method-handle call) down the chain. A record equals only a record of
     * its own class, so mixing in the class's hash keeps equal keys together; other keys keep their own hash.
     */
    static int hash(TimerKey key) {
        int h = key.hashCode();
        if (key instanceof Record) h = h * 31 + key.getClass().hashCode();
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    private Slot find(TimerKey key, int h) {
        Slot[] t = table;
        int mask = t.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            Slot s = t[i];
            if (s == null) return null;
            if (s.hash == h && (s.key == key || s.key.equals(key))) return s;
        }
    }

    private void insert(Slot slot) {
        if ((armed + 1) * 2 > table.length) grow();
        Slot[] t = table;
        int mask = t.length - 1;
        int i = slot.hash & mask;
        while (t[i] != null) i = (i + 1) & mask;
        t[i] = slot;
    }

    private void grow() {
        Slot[] old = table;
        table = new Slot[old.length * 2];
        int mask = table.length - 1;
        for (Slot s : old) {
            if (s == null) continue;
            int i = s.hash & mask;
            while (table[i] != null) i = (i + 1) & mask;
            table[i] = s;
        }
    }

    /** Linear-probing removal: later slots of the run move back into the gap when their home allows it. */
    private void remove(Slot slot) {
        Slot[] t = table;
        int mask = t.length - 1;
        int gap = slot.hash & mask;
        while (t[gap] != slot) gap = (gap + 1) & mask;
        t[gap] = null;
        for (int i = (gap + 1) & mask; t[i] != null; i = (i + 1) & mask) {
            int home = t[i].hash & mask;
            // t[i] may move to the gap if its home is not in (gap, i] (cyclically): then the gap lies on its probe path.
            boolean homeBetween = gap <= i ? (home > gap && home <= i) : (home > gap || home <= i);
            if (!homeBetween) {
                t[gap] = t[i];
                t[i] = null;
                gap = i;
            }
        }
    }
}
