package io.tandem.sst;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Predicates and triggers over the SST (derecho.md §2.6, §8.9), evaluated by the engine's poll hook
 * ({@code Engine.doWork}) on the engine's one thread: no lock, no thread of its own, so an engine
 * stays deterministic. Predicates run in insertion order within a pass.
 *
 * <p>A trigger may insert or remove predicates (that is how wedging switches the message
 * predicates off): an insertion takes effect from the next pass, a removal at once.
 */
public final class Predicates {
    /** When a trigger fires (derecho.md §2.6 table). */
    public enum Kind {
        /** The first pass on which the predicate is true; then it is removed. */
        ONE_TIME,
        /** Every pass on which the predicate is true. */
        RECURRENT,
        /** A pass on which the predicate is true after being false (or never evaluated) on the previous one. */
        TRANSITION
    }

    /**
     * The action of a predicate that holds: returns how much work it did (0: it checked and found
     * nothing to act on). Derecho's common pattern, a predicate that is always true with the
     * check-and-act in the trigger (derecho.md §2.6), reports 0 when idle so that an idle engine
     * lets its loop park.
     */
    @FunctionalInterface
    public interface Trigger {
        int run();
    }

    /** A registered predicate; {@link #remove} it to switch it off. */
    public static final class Handle {
        private final String name;
        private final BooleanSupplier predicate;
        private final Trigger trigger;
        private final Kind kind;
        private boolean removed;
        private boolean lastValue;

        private Handle(String name, BooleanSupplier predicate, Trigger trigger, Kind kind) {
            this.name = name;
            this.predicate = predicate;
            this.trigger = trigger;
            this.kind = kind;
        }

        public String name() {
            return name;
        }

        public boolean isRemoved() {
            return removed;
        }

        @Override
        public String toString() {
            return name + " (" + kind + (removed ? ", removed" : "") + ")";
        }
    }

    private final List<Handle> handles = new ArrayList<>();
    /** The handles as a pass walks them, rebuilt after an insertion or removal (not once per pass: passes run on every poll). */
    private Handle[] pass;

    /** Inserts a predicate whose trigger counts as one unit of work each time it fires. */
    public Handle insert(String name, BooleanSupplier predicate, Runnable trigger, Kind kind) {
        Objects.requireNonNull(trigger, "trigger");
        return insert(name, predicate, () -> {
            trigger.run();
            return 1;
        }, kind);
    }

    /** Inserts a predicate whose trigger reports its own work count. */
    public Handle insert(String name, BooleanSupplier predicate, Trigger trigger, Kind kind) {
        Handle h = new Handle(Objects.requireNonNull(name, "name"), Objects.requireNonNull(predicate, "predicate"),
                Objects.requireNonNull(trigger, "trigger"), Objects.requireNonNull(kind, "kind"));
        handles.add(h);
        pass = null;
        return h;
    }

    /** Removes {@code handle}; safe from inside a trigger and for a handle already removed. */
    public void remove(Handle handle) {
        if (handle == null || handle.removed) return;
        handle.removed = true;
        handles.remove(handle);
        pass = null;
    }

    public void removeAll() {
        for (Handle h : List.copyOf(handles)) remove(h);
    }

    public int size() {
        return handles.size();
    }

    /**
     * One pass over every predicate: fires the triggers whose predicates hold (by kind) and returns
     * the work they did, the poll hook's work count (a one-time or transition firing counts at least 1).
     */
    public int evaluate() {
        int fired = 0;
        Handle[] current = pass;
        if (current == null) pass = current = handles.toArray(new Handle[0]);
        for (Handle h : current) {
            if (h.removed) continue;
            boolean value = h.predicate.getAsBoolean();
            boolean was = h.lastValue;
            h.lastValue = value;
            if (!value) continue;
            switch (h.kind) {
                case ONE_TIME -> {
                    remove(h);
                    fired += Math.max(1, h.trigger.run());
                }
                case RECURRENT -> fired += h.trigger.run();
                case TRANSITION -> {
                    if (!was) fired += Math.max(1, h.trigger.run());
                }
            }
        }
        return fired;
    }
}
