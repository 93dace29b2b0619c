package io.tandem.sim.cost;

import java.util.PriorityQueue;

/** A virtual clock and event queue for the cost model's tests: events at equal times run in submission order. */
final class TestScheduler implements Scheduler {
    private record Event(long time, long seq, Runnable action) {}

    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private long now;
    private long seq;

    @Override
    public long now() {
        return now;
    }

    @Override
    public void at(long atNanos, Runnable action) {
        queue.add(new Event(Math.max(now, atNanos), seq++, action));
    }

    void runUntil(long end) {
        while (!queue.isEmpty() && queue.peek().time() <= end) {
            Event e = queue.poll();
            now = e.time();
            e.action().run();
        }
        now = Math.max(now, end);
    }

    void runAll() {
        runUntil(Long.MAX_VALUE / 2);
    }
}
