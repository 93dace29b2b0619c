package io.tandem.storage.stable;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * Small durable key-value records (term and vote, ballot, configuration), blocking, for the disk
 * thread. Every {@link #putAll} replaces the whole record set atomically and durably (temp file,
 * fsync, rename, fsync of the directory): after a crash either all of a call's values are there
 * or none. Not thread-safe. Fails fast after an error, like {@link StableLog}.
 */
public interface StableMetaStore extends AutoCloseable {
    /** Largest key, in UTF-8 bytes. */
    int MAX_KEY_BYTES = 1024;
    /** Largest value: meta records are small by design. */
    int MAX_VALUE_BYTES = 16 << 20;

    Optional<byte[]> get(String key);

    /** A copy of every record. */
    Map<String, byte[]> all();

    /** Replaces the given keys' values in one atomic, durable write. */
    void putAll(Map<String, byte[]> values);

    default void put(String key, byte[] value) {
        putAll(Map.of(key, value));
    }

    /** Checks one record against the limits every implementation enforces. */
    static void checkRecord(String key, byte[] value) {
        if (key == null || key.isEmpty() || key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("meta key must have 1-" + MAX_KEY_BYTES + " UTF-8 bytes: '" + key + "'");
        }
        if (value == null) throw new IllegalArgumentException("null value for meta key '" + key + "'");
        if (value.length > MAX_VALUE_BYTES) throw new IllegalArgumentException("meta value of '" + key + "' exceeds " + MAX_VALUE_BYTES + " bytes");
    }

    @Override
    void close();
}
