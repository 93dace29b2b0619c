package io.tandem.runtime;

import io.tandem.engine.TimerKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The timers of one engine, keyed by {@link TimerKey}: re-arming a key replaces its deadline,
 * cancelled and replaced entries are skipped lazily. Used only from the node's loop thread.
 */
final class Timers {
    private record Armed(long deadline, long generation, TimerKey key) {}

    private final Map<TimerKey, Long> generationByKey = new HashMap<>();
    /**
     * Keys armed with no delay, in arming order: due at the next {@link #due} whatever the clock says, so arming one
     * reads no clock and sorts nothing (raft19: the leader arms its replication timer this way on nearly every loop
     * turn, and {@code Context.schedule} was 6 % of its loop's CPU samples at 64 clients, a clock read per turn on this VM
     * costing 65-100 ns). Checked against {@link #generationByKey} like the queue, so re-arming or cancelling wins.
     */
    private final ArrayList<Armed> immediate = new ArrayList<>();
    private final PriorityQueue<Armed> queue = new PriorityQueue<>((a, b) -> a.deadline != b.deadline ? Long.compare(a.deadline, b.deadline) : Long.compare(a.generation, b.generation));
    private long nextGeneration;

    void schedule(TimerKey key, long deadline) {
        long generation = ++nextGeneration;
        generationByKey.put(key, generation);
        queue.add(new Armed(deadline, generation, key));
    }

    /** Arms {@code key} to fire at the next {@link #due}, replacing any deadline it had. */
    void scheduleNow(TimerKey key) {
        long generation = ++nextGeneration;
        generationByKey.put(key, generation);
        immediate.add(new Armed(0, generation, key));
    }

    void cancel(TimerKey key) {
        generationByKey.remove(key);
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
            Long live = generationByKey.get(a.key);
            if (live == null || live != a.generation) continue;
            generationByKey.remove(a.key);
            if (fired == null) fired = new ArrayList<>(4);
            fired.add(a.key);
        }
        if (!immediate.isEmpty()) {
            for (int i = 0; i < immediate.size(); i++) {
                Armed a = immediate.get(i);
                Long live = generationByKey.get(a.key);
                if (live == null || live != a.generation) continue;
                generationByKey.remove(a.key);
                if (fired == null) fired = new ArrayList<>(4);
                fired.add(a.key);
            }
            immediate.clear();
        }
        return fired == null ? List.of() : fired;
    }

    /** Nanoseconds until the next live deadline (purging dead entries), or {@code Long.MAX_VALUE}. */
    long nanosUntilNext(long now) {
        for (int i = 0; i < immediate.size(); i++) {
            Armed a = immediate.get(i);
            Long live = generationByKey.get(a.key);
            if (live != null && live == a.generation) return 0;
        }
        while (!queue.isEmpty()) {
            Armed a = queue.peek();
            Long live = generationByKey.get(a.key);
            if (live != null && live == a.generation) return Math.max(0, a.deadline - now);
            queue.poll();
        }
        return Long.MAX_VALUE;
    }

    int size() {
        return generationByKey.size();
    }
}
