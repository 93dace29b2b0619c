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

    /** One operation; a read asks with the lease policy when {@code lease}, with a minimum index when {@code stale} (reads only). */
    record Next(Kind f, long key, long value, long expected, boolean lease, boolean stale) {}

    private final RandomGenerator random;
    private final int opsPerKey;
    private final double leaseShare;
    private final double staleShare;
    private final List<long[]> active = new ArrayList<>(); // {key, operations left}
    private long nextKey;

    SimWorkload(RandomGenerator random, int keys, int opsPerKey, double leaseShare, double staleShare) {
        this.random = random;
        this.leaseShare = leaseShare;
        this.staleShare = staleShare;
        this.opsPerKey = opsPerKey;
        for (int i = 0; i < keys; i++) active.add(new long[] {nextKey++, opsPerKey});
    }

    Next next() {
        int slot = random.nextInt(active.size());
        long[] key = active.get(slot);
        if (--key[1] == 0) active.set(slot, new long[] {nextKey++, opsPerKey});
        int roll = random.nextInt(10);
        Kind f = roll < 4 ? Kind.READ : roll < 7 ? Kind.WRITE : Kind.CAS;
        // One draw picks the read's policy: [0, lease) lease, [lease, lease + stale) stale, the rest linearizable.
        double policy = f == Kind.READ && (leaseShare > 0 || staleShare > 0) ? random.nextDouble() : 1;
        boolean lease = policy < leaseShare;
        boolean stale = !lease && policy < leaseShare + staleShare;
        return new Next(f, key[0], random.nextInt(VALUES), random.nextInt(VALUES), lease, stale);
    }
}
