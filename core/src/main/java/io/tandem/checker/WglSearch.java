package io.tandem.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The Wing–Gong linearizability search with Lowe's memoization, on one partition.
 *
 * <p>Calls and returns sit in one doubly linked list in history order. The search walks it from the
 * front: at a call it tries to linearize that operation now (the model accepts it and the pair
 * (set of linearized operations, register value) has not been explored before), which lifts the call and
 * its return out of the list and restarts from the front; at a return it has reached an operation that
 * completed before anything else could be linearized, so it backtracks. Lifting and unlifting are O(1)
 * (dancing links), and the memo makes the search polynomial for histories with bounded concurrency.
 *
 * <p>Operations with unknown outcomes have no return entry (they never returned) and a total step
 * function, so once every operation that did return is linearized the rest can always follow: the
 * search stops there. Records the deepest point reached, which is what a violation report shows.
 */
final class WglSearch {
    /** How the search ended. */
    enum Outcome { LINEARIZABLE, NOT_LINEARIZABLE, BUDGET_EXHAUSTED }

    private static final int END = -1;

    private final Partition partition;
    private final RegisterOp[] ops;
    private final int head;
    private final int[] next;
    private final int[] prev;
    private final long[] zobrist;

    // Deepest point reached, for the violation report.
    private int bestDepth = -1;
    private int[] bestPrefix = new int[0];
    private int bestState;
    private int bestBlocked = -1;

    private long steps;

    WglSearch(Partition partition) {
        this.partition = partition;
        this.ops = partition.ops().toArray(new RegisterOp[0]);
        int n = ops.length;
        // Entry 2i is the call of op i, 2i+1 its return; the head sentinel is 2n.
        this.head = 2 * n;
        this.next = new int[2 * n + 1];
        this.prev = new int[2 * n + 1];
        long[] events = new long[2 * n];
        int count = 0;
        for (int i = 0; i < n; i++) {
            events[count++] = ((long) ops[i].callAt() << 32) | (2L * i);
            if (ops[i].returns()) {
                events[count++] = ((long) ops[i].returnAt() << 32) | (2L * i + 1);
            }
        }
        Arrays.sort(events, 0, count); // positions are distinct, so this is history order
        int last = head;
        for (int k = 0; k < count; k++) {
            int entry = (int) events[k];
            next[last] = entry;
            prev[entry] = last;
            last = entry;
        }
        next[last] = END;
        // Zobrist hashing keeps the hash of the linearized set up to date in O(1) per step. The seed is
        // fixed so that runs are reproducible.
        SplittableRandom random = new SplittableRandom(0x7A4DE3L);
        this.zobrist = new long[n];
        for (int i = 0; i < n; i++) {
            zobrist[i] = random.nextLong();
        }
    }

    /** Runs the search, spending at most what the budget allows. */
    Outcome run(Budget budget) {
        int n = ops.length;
        long[] linearized = new long[(n + 63) >>> 6];
        StateCache cache = new StateCache(linearized.length);
        int[] opStack = new int[n];
        int[] stateStack = new int[n];
        int depth = 0;
        int state = partition.initial();
        long hash = 0;
        int unreturned = 0;
        for (RegisterOp op : ops) {
            if (op.returns()) {
                unreturned++;
            }
        }
        int entry = next[head];
        while (unreturned > 0) {
            steps++;
            if (!budget.spend()) {
                return Outcome.BUDGET_EXHAUSTED;
            }
            if (entry == END) {
                // Every call before the first pending return is tried before that return is reached.
                throw new IllegalStateException("search ran past the last return entry");
            }
            if ((entry & 1) == 1) {
                // A return: its op completed before any remaining op could extend the prefix, so it
                // cannot be linearized here.
                if (depth > bestDepth) {
                    recordDeepest(opStack, depth, state, entry >> 1);
                }
                if (depth == 0) {
                    return Outcome.NOT_LINEARIZABLE;
                }
                depth--;
                int op = opStack[depth];
                state = stateStack[depth];
                hash ^= zobrist[op];
                linearized[op >>> 6] &= ~(1L << op);
                unlift(op);
                if (ops[op].returns()) {
                    unreturned++;
                }
                entry = next[2 * op];
                continue;
            }
            int op = entry >> 1;
            int newState = ops[op].step(state);
            if (newState >= 0) {
                long newHash = hash ^ zobrist[op];
                linearized[op >>> 6] |= 1L << op;
                if (cache.add(linearized, newHash, newState)) {
                    opStack[depth] = op;
                    stateStack[depth] = state;
                    depth++;
                    state = newState;
                    hash = newHash;
                    lift(op);
                    if (ops[op].returns()) {
                        unreturned--;
                    }
                    entry = next[head];
                    continue;
                }
                linearized[op >>> 6] &= ~(1L << op);
            }
            entry = next[entry];
        }
        return Outcome.LINEARIZABLE;
    }

    long steps() {
        return steps;
    }

    /** Ops of the deepest linearizable prefix found, in linearization order. */
    List<RegisterOp> deepestPrefix() {
        List<RegisterOp> prefix = new ArrayList<>(bestPrefix.length);
        for (int op : bestPrefix) {
            prefix.add(ops[op]);
        }
        return prefix;
    }

    /** The register value id after the deepest prefix. */
    int stateAfterDeepestPrefix() {
        return bestState;
    }

    /** The op that could not be linearized after the deepest prefix. */
    RegisterOp blocked() {
        return ops[bestBlocked];
    }

    private void recordDeepest(int[] opStack, int depth, int state, int blocked) {
        bestDepth = depth;
        bestPrefix = Arrays.copyOf(opStack, depth);
        bestState = state;
        bestBlocked = blocked;
    }

    private void lift(int op) {
        remove(2 * op);
        if (ops[op].returns()) {
            remove(2 * op + 1);
        }
    }

    /** Undoes {@link #lift}; lifts are undone in reverse order, which is what makes relinking valid. */
    private void unlift(int op) {
        if (ops[op].returns()) {
            restore(2 * op + 1);
        }
        restore(2 * op);
    }

    private void remove(int entry) {
        next[prev[entry]] = next[entry];
        if (next[entry] != END) {
            prev[next[entry]] = prev[entry];
        }
    }

    private void restore(int entry) {
        next[prev[entry]] = entry;
        if (next[entry] != END) {
            prev[next[entry]] = entry;
        }
    }

    /**
     * The memo: a set of (linearized set, register value) pairs, open addressing on the precomputed
     * hash. Bit sets are copied on insertion; the search mutates its own in place.
     */
    static final class StateCache {
        private final int words;
        private long[] hashes = new long[1024];
        private int[] states = new int[1024];
        private long[][] sets = new long[1024][];
        private int size;

        StateCache(int words) {
            this.words = words;
        }

        /** Adds the pair; false if it was already present. */
        boolean add(long[] set, long setHash, int state) {
            long h = setHash ^ (state * 0x9E3779B97F4A7C15L);
            int mask = sets.length - 1;
            int slot = (int) (mix(h) & mask);
            while (sets[slot] != null) {
                if (hashes[slot] == h && states[slot] == state && Arrays.equals(sets[slot], set)) {
                    return false;
                }
                slot = (slot + 1) & mask;
            }
            hashes[slot] = h;
            states[slot] = state;
            sets[slot] = Arrays.copyOf(set, words);
            if (++size * 2 > sets.length) {
                grow();
            }
            return true;
        }

        private void grow() {
            long[] oldHashes = hashes;
            int[] oldStates = states;
            long[][] oldSets = sets;
            int capacity = oldSets.length * 2;
            hashes = new long[capacity];
            states = new int[capacity];
            sets = new long[capacity][];
            int mask = capacity - 1;
            for (int i = 0; i < oldSets.length; i++) {
                if (oldSets[i] != null) {
                    int slot = (int) (mix(oldHashes[i]) & mask);
                    while (sets[slot] != null) {
                        slot = (slot + 1) & mask;
                    }
                    hashes[slot] = oldHashes[i];
                    states[slot] = oldStates[i];
                    sets[slot] = oldSets[i];
                }
            }
        }

        private static long mix(long h) {
            h ^= h >>> 33;
            h *= 0xFF51AFD7ED558CCDL;
            h ^= h >>> 33;
            return h;
        }
    }
}
