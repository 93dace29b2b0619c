package io.tandem.storage;

import java.util.Optional;

/**
 * Small durable records of an engine: term and vote, ballot, configuration (DESIGN §6). A write
 * replaces the record atomically; {@link StorageEvent.MetaSaved} reports it durable. An engine
 * must not act on a value (reply to a vote, say) before that event arrives.
 */
public interface MetaStore {
    /** The last value written for {@code key}, durable or not yet. */
    Optional<byte[]> get(String key);

    /** Replaces {@code key}'s value; completes with {@link StorageEvent.MetaSaved} carrying {@code token}. */
    void put(String key, byte[] value, long token);
}
