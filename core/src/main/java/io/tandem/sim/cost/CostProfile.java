package io.tandem.sim.cost;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each machine's modelled CPU goes, per kind of work and message type: counts and the service time charged
 * (what a profiler of the real process would show per handler). A diagnostic of the model, never fed back into it:
 * the runs are the same with or without it. Off unless {@link #start}ed: {@link io.tandem.sim.SimBench} starts it at
 * the measured window when the system property {@code tandem.simbench.profile} names a file, and writes it at the end
 * (issue 21, session 16: finding which messages a replica spends its core on at 90 % reads). Off, recording costs a
 * field read per event, not a map entry.
 */
public final class CostProfile {
    /** One line: a machine, what it did ("recv", "send", "exec", "client-reply", ...) and on what (a message type, a timer). */
    public record Key(String node, String what, String type) {}

    /** Count and nanoseconds charged. */
    public record Entry(Key key, long count, long nanos) {}

    private final Map<Key, long[]> entries = new HashMap<>();
    private boolean on;

    /** Whether it records; a caller that builds a label for {@link #record} asks first. */
    public boolean on() {
        return on;
    }

    /** Forgets what it recorded and records from now on. */
    public void start() {
        entries.clear();
        on = true;
    }

    /** Charges {@code nanos} of {@code node}'s CPU to {@code what} of {@code type} (null: none); nothing while off. */
    public void record(String node, String what, String type, long nanos) {
        if (!on) return;
        long[] e = entries.computeIfAbsent(new Key(node, what, type == null ? "" : type), k -> new long[2]);
        e[0]++;
        e[1] += nanos;
    }

    /** Every entry, in no particular order. */
    public List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        entries.forEach((k, v) -> out.add(new Entry(k, v[0], v[1])));
        return out;
    }
}
