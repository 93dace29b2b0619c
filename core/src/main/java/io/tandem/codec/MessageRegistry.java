package io.tandem.codec;

import com.esotericsoftware.kryo.Serializer;

/**
 * Where a protocol declares the types it sends (DESIGN §7). Ids must be identical on every node
 * of a group, so each protocol owns a fixed range (see {@link CodecIds}) and registers explicitly.
 * Types that are not registered can neither be written nor read: nothing on the wire can make a
 * node instantiate an arbitrary class.
 */
public interface MessageRegistry {
    void register(Class<?> type, int id);

    <T> void register(Class<T> type, Serializer<T> serializer, int id);
}
