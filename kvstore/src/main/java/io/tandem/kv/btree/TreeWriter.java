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
