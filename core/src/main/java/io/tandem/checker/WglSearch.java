package io.tandem.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The Wing–Gong linearizability search with Lowe's memoization, on one partition.
 *
 * <p>Calls and returns sit in one doubly linked list in history order. The search walks it from the
 * front: at a call it tries to linearize that operation now, which lifts the call and its return out of
 * the list and restarts from the front; at a return it has reached an operation that completed before
 * anything else could be linearized, so the current prefix is a dead end and it backtracks. Lifting and
 * unlifting are O(1) (dancing links). Dead ends are remembered as (linearized set, register value), so
 * no configuration is explored twice, which keeps the search polynomial for bounded concurrency.
 *
 * <p>Operations with unknown outcomes ({@code :info}, never completed) have no return entry and a total
 * step function, so once every operation that did return is linearized the rest can follow: the search
 * stops there. They are also what makes refutation expensive (each one may be linearized anywhere
 * after its invocation, so the linearized sets multiply), hence three reductions, each of which keeps
 * the search complete because any linearization can be rewritten to respect it:
 * <ul>
 *   <li>An unknown operation is never linearized where it would not change the register: dropping it
 *       from a linearization leaves every state, and so every later operation, unchanged.
 *   <li>Identical unknown operations (same kind and arguments) are linearized in invocation order: two
 *       of them can swap places in any linearization, since neither ever returned.
 *   <li>Dead ends are matched by dominance: a configuration is a dead end if a dead end with the same
 *       returned operations linearized, the same register value and a subset of its unknown operations
 *       linearized exists, because using fewer optional operations never removes an option.
 * </ul>
 *
 * <p>Records the deepest point reached, which is what a violation report shows.
 */
final class WglSearch {
    /** How the search ended. */
    enum Outcome { LINEARIZABLE, NOT_LINEARIZABLE, BUDGET_EXHAUSTED, MEMORY_EXHAUSTED }

    private static final int END = -1;

    private final Partition partition;
    private final RegisterOp[] ops;
    private final int head;
    private final int[] next;
    private final int[] prev;
    /** Bit of each op in its bit set: returned ops and unknown ops are numbered separately. */
    private final int[] bit;
    /** Random key of each returned op, for the incremental (Zobrist) hash of the returned set. */
    private final long[] zobrist;
    /** For an unknown op, the closest earlier-invoked identical unknown op, else -1. */
    private final int[] twinBefore;
    private final int returning;
    private final int unknown;

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

        this.bit = new int[n];
        this.twinBefore = new int[n];
        this.zobrist = new long[n];
        // A fixed seed keeps runs reproducible.
        SplittableRandom random = new SplittableRandom(0x7A4DE3L);
        Map<List<Integer>, Integer> lastTwin = new HashMap<>();
        int r = 0;
        int u = 0;
        for (int i = 0; i < n; i++) { // ops are in invocation order
            twinBefore[i] = -1;
            if (ops[i].returns()) {
                bit[i] = r++;
                zobrist[i] = random.nextLong();
            } else {
                bit[i] = u++;
                Integer twin = lastTwin.put(List.of(ops[i].kind(), ops[i].a(), ops[i].b()), i);
                twinBefore[i] = twin == null ? -1 : twin;
            }
        }
        this.returning = r;
        this.unknown = u;
    }

    /** Runs the search, spending at most what the budget allows. */
    Outcome run(Budget budget) {
        int n = ops.length;
        long[] returned = new long[(returning + 63) >>> 6];
        long[] maybe = new long[(unknown + 63) >>> 6];
        DeadEnds deadEnds = new DeadEnds(returned.length, maybe.length);
        int[] opStack = new int[n];
        int[] stateStack = new int[n];
        int depth = 0;
        int state = partition.initial();
        long hash = 0;
        int unreturned = returning;
        int entry = next[head];
        while (unreturned > 0) {
            steps++;
            if (!budget.spend(1)) {
                return Outcome.BUDGET_EXHAUSTED;
            }
            if (entry == END) {
                // Every call before the first pending return is tried before that return is reached.
                throw new IllegalStateException("search ran past the last return entry");
            }
            if ((entry & 1) == 1) {
                // A return: its op completed before any remaining op could extend the prefix, so the
                // prefix is a dead end.
                if (depth > bestDepth) {
                    recordDeepest(opStack, depth, state, entry >> 1);
                }
                if (depth == 0) {
                    return Outcome.NOT_LINEARIZABLE;
                }
                deadEnds.add(returned, hash, state, maybe);
                if (deadEnds.bytes > budget.maxMemoryBytes()) {
                    return Outcome.MEMORY_EXHAUSTED;
                }
                depth--;
                int op = opStack[depth];
                state = stateStack[depth];
                if (ops[op].returns()) {
                    hash ^= zobrist[op];
                    clear(returned, bit[op]);
                    unreturned++;
                } else {
                    clear(maybe, bit[op]);
                }
                unlift(op);
                entry = next[2 * op];
                continue;
            }
            int op = entry >> 1;
            RegisterOp candidate = ops[op];
            int newState = candidate.step(state);
            boolean returns = candidate.returns();
            if (newState < 0
                    || (!returns && (newState == state || (twinBefore[op] >= 0 && !isSet(maybe, bit[twinBefore[op]]))))) {
                entry = next[entry];
                continue;
            }
            long newHash = returns ? hash ^ zobrist[op] : hash;
            long[] set = returns ? returned : maybe;
            set(set, bit[op]);
            long probesBefore = deadEnds.probes;
            boolean deadEnd = deadEnds.covers(returned, newHash, newState, maybe);
            // Comparing against many dead ends is work too: it counts against the budget, so that the
            // budget bounds time even when one configuration has many dominance candidates.
            long probes = deadEnds.probes - probesBefore;
            steps += probes;
            if (!budget.spend(probes)) {
                return Outcome.BUDGET_EXHAUSTED;
            }
            if (deadEnd) {
                clear(set, bit[op]);
                entry = next[entry];
                continue;
            }
            opStack[depth] = op;
            stateStack[depth] = state;
            depth++;
            state = newState;
            hash = newHash;
            lift(op);
            if (returns) {
                unreturned--;
            }
            entry = next[head];
        }
        return Outcome.LINEARIZABLE;
    }

    /** Work done: loop iterations plus dead-end comparisons. */
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

    private static void set(long[] bits, int i) {
        bits[i >>> 6] |= 1L << i;
    }

    private static void clear(long[] bits, int i) {
        bits[i >>> 6] &= ~(1L << i);
    }

    private static boolean isSet(long[] bits, int i) {
        return (bits[i >>> 6] & (1L << i)) != 0;
    }

    /**
     * The dead ends found so far: (returned set, register value, unknown set) triples, in an
     * open-addressing table keyed by the hash of the first two. Linear probing keeps every entry with the
     * same key hash in the run of slots after its home slot, so a lookup scans that run for an entry with
     * the same returned set and value whose unknown set is a subset of the one asked about. Bit sets are
     * copied on insertion; the search mutates its own in place.
     */
    static final class DeadEnds {
        private static final long[] EMPTY = new long[0];

        private final int returnedWords;
        private final int maybeWords;
        private long[] hashes = new long[1024];
        private int[] states = new int[1024];
        private long[][] returnedSets = new long[1024][];
        private long[][] maybeSets = new long[1024][];
        private int size;
        /** Dead ends compared so far by {@link #covers}, the cost of the lookups. */
        long probes;
        /** Estimated heap use: the bit set copies, their array headers and two table slots per entry. */
        long bytes;

        DeadEnds(int returnedWords, int maybeWords) {
            this.returnedWords = returnedWords;
            this.maybeWords = maybeWords;
        }

        void add(long[] returned, long returnedHash, int state, long[] maybe) {
            long h = key(returnedHash, state);
            int mask = hashes.length - 1;
            int slot = (int) (mix(h) & mask);
            while (returnedSets[slot] != null) {
                slot = (slot + 1) & mask;
            }
            hashes[slot] = h;
            states[slot] = state;
            returnedSets[slot] = Arrays.copyOf(returned, returnedWords);
            maybeSets[slot] = maybeWords == 0 ? EMPTY : Arrays.copyOf(maybe, maybeWords);
            bytes += 8L * (returnedWords + maybeWords) + 2 * 16 + 2 * (8 + 4 + 4 + 4);
            if (++size * 2 > hashes.length) {
                grow();
            }
        }

        boolean covers(long[] returned, long returnedHash, int state, long[] maybe) {
            long h = key(returnedHash, state);
            int mask = hashes.length - 1;
            for (int slot = (int) (mix(h) & mask); returnedSets[slot] != null; slot = (slot + 1) & mask) {
                probes++;
                if (hashes[slot] == h && states[slot] == state && Arrays.equals(returnedSets[slot], returned)
                        && isSubset(maybeSets[slot], maybe)) {
                    return true;
                }
            }
            return false;
        }

        private static boolean isSubset(long[] small, long[] large) {
            for (int i = 0; i < small.length; i++) {
                if ((small[i] & ~large[i]) != 0) {
                    return false;
                }
            }
            return true;
        }

        private static long key(long returnedHash, int state) {
            return returnedHash ^ (state * 0x9E3779B97F4A7C15L);
        }

        private void grow() {
            long[] oldHashes = hashes;
            int[] oldStates = states;
            long[][] oldReturned = returnedSets;
            long[][] oldMaybe = maybeSets;
            int capacity = oldHashes.length * 2;
            hashes = new long[capacity];
            states = new int[capacity];
            returnedSets = new long[capacity][];
            maybeSets = new long[capacity][];
            int mask = capacity - 1;
            for (int i = 0; i < oldHashes.length; i++) {
                if (oldReturned[i] != null) {
                    int slot = (int) (mix(oldHashes[i]) & mask);
                    while (returnedSets[slot] != null) {
                        slot = (slot + 1) & mask;
                    }
                    hashes[slot] = oldHashes[i];
                    states[slot] = oldStates[i];
                    returnedSets[slot] = oldReturned[i];
                    maybeSets[slot] = oldMaybe[i];
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
