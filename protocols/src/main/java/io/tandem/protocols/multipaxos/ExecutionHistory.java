package io.tandem.protocols.multipaxos;

/** The last slots a replica executed and digests of their values, in a fixed ring, for the simulator's invariants. */
final class ExecutionHistory {
    static final int CAPACITY = 8192;

    private final long[] slots = new long[CAPACITY];
    private final long[] digests = new long[CAPACITY];
    private final String[] origins = new String[CAPACITY];
    private final long[] requestIds = new long[CAPACITY];
    private long count;

    /** Records slot {@code slot}, its value's digest and the client request it serves (origin null and 0 for a no-op). */
    void record(long slot, long digest, String origin, long requestId) {
        int i = (int) (count % CAPACITY);
        slots[i] = slot;
        digests[i] = digest;
        origins[i] = origin;
        requestIds[i] = requestId;
        count++;
    }

    String origin(long seq) {
        return origins[index(seq)];
    }

    long requestId(long seq) {
        return requestIds[index(seq)];
    }

    long count() {
        return count;
    }

    long slot(long seq) {
        return slots[index(seq)];
    }

    long digest(long seq) {
        return digests[index(seq)];
    }

    private int index(long seq) {
        if (seq < 0 || seq >= count || seq < count - CAPACITY) throw new IndexOutOfBoundsException("execution " + seq + " is not retained (recorded " + count + ")");
        return (int) (seq % CAPACITY);
    }
}
