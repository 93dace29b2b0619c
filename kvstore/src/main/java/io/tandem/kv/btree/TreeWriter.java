package io.tandem.kv.btree;

/**
 * The write operations of a {@link BPlusTree}. Inside {@link BPlusTree#atomically} a writer sees
 * its own changes; readers see none of them until the whole group is published at once.
 *
 * <p>The tree keeps the key and value arrays it is given (no copies): callers must not modify them
 * afterwards. Keys are ordered as unsigned bytes, lexicographically; the empty key is allowed.
 */
public interface TreeWriter {
    /** The value of {@code key} in the writer's current state, or {@code null}. */
    byte[] get(byte[] key);

    /** Sets {@code key} to {@code value}; returns the previous value or {@code null}. */
    byte[] put(byte[] key, byte[] value);

    /**
     * {@link #put(byte[], byte[])} of the key in {@code buffer[from, to)} (a range of a log entry: issue 25, part 15).
     * The tree never keeps or writes {@code buffer}: an overwrite keeps the tree's own key array, an insert stores a
     * copy of the range, so no key array is made for a put that overwrites. The value is kept as given.
     */
    default byte[] put(byte[] buffer, int from, int to, byte[] value) {
        return put(java.util.Arrays.copyOfRange(buffer, from, to), value);
    }

    /** Deletes {@code key}; returns the previous value or {@code null} if it was absent. */
    byte[] remove(byte[] key);

    /**
     * Sets {@code key} to {@code update} (or deletes it if {@code update} is {@code null}) only if
     * its value equals {@code expected} by content ({@code null}: only if the key is absent).
     */
    CasOutcome compareAndSet(byte[] key, byte[] expected, byte[] update);

    /** Number of entries in the writer's current state. */
    int size();
}
