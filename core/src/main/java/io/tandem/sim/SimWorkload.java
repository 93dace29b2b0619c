package io.tandem.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Generates the independent-register workload: reads, writes and cas over a few keys in use at a
 * time, with values from a small domain (0..4, as in Jepsen) so that cas often succeeds and
 * anomalies show. Each key takes at most {@code opsPerKey} operations and is then retired for a
 * fresh one, so every per-key history stays small enough for the linearizability search.
 */
final class SimWorkload {
    static final int VALUES = 5;

    enum Kind { READ, WRITE, CAS }

    /** One operation; a read asks with the lease policy when {@code lease} (reads only). */
    record Next(Kind f, long key, long value, long expected, boolean lease) {}

    private final RandomGenerator random;
    private final int opsPerKey;
    private final double leaseShare;
    private final List<long[]> active = new ArrayList<>(); // {key, operations left}
    private long nextKey;

    SimWorkload(RandomGenerator random, int keys, int opsPerKey, double leaseShare) {
        this.random = random;
        this.leaseShare = leaseShare;
        this.opsPerKey = opsPerKey;
        for (int i = 0; i < keys; i++) active.add(new long[] {nextKey++, opsPerKey});
    }

    Next next() {
        int slot = random.nextInt(active.size());
        long[] key = active.get(slot);
        if (--key[1] == 0) active.set(slot, new long[] {nextKey++, opsPerKey});
        int roll = random.nextInt(10);
        Kind f = roll < 4 ? Kind.READ : roll < 7 ? Kind.WRITE : Kind.CAS;
        boolean lease = f == Kind.READ && leaseShare > 0 && random.nextDouble() < leaseShare;
        return new Next(f, key[0], random.nextInt(VALUES), random.nextInt(VALUES), lease);
    }
}
