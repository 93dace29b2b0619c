package io.tandem.kv.shard;

/**
 * Which shard of a sharded KV store owns a key: the one function clients and servers share
 * (derecho.md §1.3: the layout says which members serve a shard, this says which shard a key is in).
 * A hash, not ranges: the register and demo workloads use short keys with common prefixes, which
 * ranges over the first bytes would put in one shard. So a range scan spans every shard and is
 * refused on a store of more than one shard.
 */
public final class KeyShards {
    /** The most shards a store may have. */
    public static final int MAX_SHARDS = 64;

    private KeyShards() {}

    /** The shard of {@code key} among {@code shards}: FNV-1a over the key's bytes, reduced modulo {@code shards}. */
    public static int shardOf(byte[] key, int shards) {
        if (shards < 1 || shards > MAX_SHARDS) throw new IllegalArgumentException("shards must be in [1, " + MAX_SHARDS + "], was " + shards);
        if (shards == 1) return 0;
        long h = 0xcbf29ce484222325L;
        for (byte b : key) h = (h ^ (b & 0xff)) * 0x100000001b3L;
        h ^= h >>> 29; // the low bits of FNV-1a mix the last byte weakly: fold the high ones in
        return (int) Long.remainderUnsigned(h, shards);
    }
}
