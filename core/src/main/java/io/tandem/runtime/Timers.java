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
    private final PriorityQueue<Armed> queue = new PriorityQueue<>((a, b) -> a.deadline != b.deadline ? Long.compare(a.deadline, b.deadline) : Long.compare(a.generation, b.generation));
    private long nextGeneration;

    void schedule(TimerKey key, long deadline) {
        long generation = ++nextGeneration;
        generationByKey.put(key, generation);
        queue.add(new Armed(deadline, generation, key));
    }

    void cancel(TimerKey key) {
        generationByKey.remove(key);
    }

    /** Removes and returns the keys due at {@code now}, earliest first. */
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
        return fired == null ? List.of() : fired;
    }

    /** Nanoseconds until the next live deadline (purging dead entries), or {@code Long.MAX_VALUE}. */
    long nanosUntilNext(long now) {
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
