package io.tandem.kv;

import io.tandem.kv.KvCommand.CompareAndSet;
import io.tandem.kv.KvCommand.Delete;
import io.tandem.kv.KvCommand.Put;
import io.tandem.kv.KvQuery.Get;
import io.tandem.kv.KvQuery.Scan;
import io.tandem.kv.btree.Entry;
import io.tandem.statemachine.StateMachine;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The KV service on a plain {@link HashMap}: the state machine of the Compartmentalization paper's evaluation
 * (spec §4.1, "a key-value store state machine"; a hash map in its artifact), speaking the same {@link KvCodec}
 * commands and queries as {@link KvStateMachine}, so the KV client, the servers and the benchmarks drive either.
 *
 * <p>What it leaves out, and why that is the point: the B+-tree's ordered, path-copied versions (readable from other
 * threads while commands apply), parallel execution and cheap ordered scans. A put is one hash-map insert, which is
 * what the paper's replicas pay per write (issue 21: the replica's apply bounds the compartmentalized write
 * throughput). Exactly-once stays where it is for every machine: the executor's session table answers a retried
 * command without applying it again, so this class never sees a duplicate.
 *
 * <p>Threads: {@link #apply}, {@link #query}, {@link #snapshot} and {@link #restore} come from the one execution
 * thread (the {@link StateMachine} contract); the map is never read from another thread.
 *
 * <p>Determinism: results depend only on the state and the command. The map's iteration order is never visible:
 * a scan sorts the keys it returns and a snapshot writes the entries in key order, so replicas that applied the same
 * commands write identical snapshots. A scan therefore costs a pass over every key (and a sort of the matching
 * ones): fine for the occasional scan, not for a scan-heavy workload (use {@link KvStateMachine}).
 */
public final class HashKvStateMachine implements StateMachine {
    private static final int SNAPSHOT_MAGIC = 0x484B5601; // "HKV" + format 1

    private final Map<Key, byte[]> map = new HashMap<>();
    private final KvCodec codec;

    public HashKvStateMachine() {
        this(KvLimits.DEFAULTS);
    }

    public HashKvStateMachine(KvLimits limits) {
        this.codec = new KvCodec(limits);
    }

    public KvCodec codec() {
        return codec;
    }

    /** Number of keys; execution thread only (tests, inspection). */
    public int size() {
        return map.size();
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        return codec.encode(applyForResult(index, command));
    }

    /** {@link #apply} without the encoding, as {@link KvStateMachine#applyForResult} (the map never writes into a value array). */
    @Override
    public KvResult applyForResult(long index, byte[] command) {
        try {
            return execute(codec.decodeCommand(command));
        } catch (KvException e) {
            return new KvResult.Failed(e.reason(), e.getMessage());
        }
    }

    /**
     * {@link #applyForResult(long, byte[])} of a command inside a log entry (issue 25): decoded straight from
     * the range, so the command is not copied out of the entry first; the key and value the tree keeps are
     * the decoder's own copies, so nothing here refers to the entry. Bad bytes give {@link KvResult.Failed}
     * as before.
     */
    @Override
    public KvResult applyForResult(long index, byte[] buffer, int offset, int length) {
        try {
            return execute(codec.decodeCommand(buffer, offset, length));
        } catch (KvException e) {
            return new KvResult.Failed(e.reason(), e.getMessage());
        }
    }

    @Override
    public byte[] query(byte[] query) {
        KvResult result;
        try {
            result = read(codec.decodeQuery(query));
        } catch (KvException e) {
            result = new KvResult.Failed(e.reason(), e.getMessage());
        }
        return codec.encode(result);
    }

    /**
     * Applies a decoded command, with the same results as {@link KvStateMachine#execute}: limits checked again
     * (a command may come from an embedding program), {@link KvResult.Failed} instead of an exception. The map keeps
     * the command's arrays: do not modify them afterwards.
     */
    public KvResult execute(KvCommand command) {
        Objects.requireNonNull(command, "command");
        try {
            codec.validate(command);
        } catch (KvException e) {
            return new KvResult.Failed(e.reason(), e.getMessage());
        }
        return switch (command) {
            case Put(byte[] key, byte[] value) -> previous(map.put(new Key(key), value));
            case Delete(byte[] key) -> previous(map.remove(new Key(key)));
            case CompareAndSet(byte[] key, byte[] expected, byte[] update) -> compareAndSet(new Key(key), expected, update);
        };
    }

    private KvResult compareAndSet(Key key, byte[] expected, byte[] update) {
        byte[] current = map.get(key);
        if (!Arrays.equals(current, expected)) return new KvResult.CasFailed(current);
        if (update != null) map.put(key, update);
        else if (current != null) map.remove(key);
        return new KvResult.CasSucceeded();
    }

    /** Answers a decoded query, as {@link KvStateMachine#read} does. The arrays in the result are the map's own. */
    public KvResult read(KvQuery query) {
        Objects.requireNonNull(query, "query");
        try {
            codec.validate(query);
        } catch (KvException e) {
            return new KvResult.Failed(e.reason(), e.getMessage());
        }
        return switch (query) {
            case Get(byte[] key) -> previous(map.get(new Key(key)));
            case Scan(byte[] from, byte[] to, int limit) -> scan(from, to, limit);
        };
    }

    /** The same page {@link KvStateMachine} returns: entries in unsigned key order, capped by count and bytes. */
    private KvResult.Page scan(byte[] from, byte[] to, int requestedLimit) {
        List<Map.Entry<Key, byte[]>> matching = new ArrayList<>();
        for (Map.Entry<Key, byte[]> e : map.entrySet()) {
            byte[] k = e.getKey().bytes;
            if ((from == null || Arrays.compareUnsigned(k, from) >= 0) && (to == null || Arrays.compareUnsigned(k, to) < 0)) matching.add(e);
        }
        matching.sort((a, b) -> Arrays.compareUnsigned(a.getKey().bytes, b.getKey().bytes));
        int limit = Math.min(requestedLimit, codec.limits().maxScanEntries());
        long byteBudget = codec.limits().maxScanBytes();
        List<Entry> entries = new ArrayList<>(Math.min(limit, 64));
        long bytes = 0;
        for (Map.Entry<Key, byte[]> e : matching) {
            byte[] key = e.getKey().bytes;
            long size = (long) key.length + e.getValue().length;
            if (entries.size() == limit || (!entries.isEmpty() && bytes + size > byteBudget)) return new KvResult.Page(entries, key);
            entries.add(new Entry(key, e.getValue()));
            bytes += size;
        }
        return new KvResult.Page(entries, null);
    }

    private static KvResult previous(byte[] value) {
        return value == null ? new KvResult.NotFound() : new KvResult.Found(value);
    }

    /** Entries in unsigned key order, so two replicas with the same state write the same bytes. */
    @Override
    public void snapshot(OutputStream out) throws IOException {
        List<Key> keys = new ArrayList<>(map.keySet());
        keys.sort((a, b) -> Arrays.compareUnsigned(a.bytes, b.bytes));
        DataOutputStream d = new DataOutputStream(out);
        d.writeInt(SNAPSHOT_MAGIC);
        d.writeInt(keys.size());
        for (Key k : keys) {
            byte[] v = map.get(k);
            d.writeInt(k.bytes.length);
            d.write(k.bytes);
            d.writeInt(v.length);
            d.write(v);
        }
        d.flush();
    }

    /** Refuses a stream that is not one of its own snapshots (a B+-tree snapshot, say) instead of misreading it. */
    @Override
    public void restore(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        int magic = d.readInt();
        if (magic != SNAPSHOT_MAGIC) throw new IOException("not a hash-map KV snapshot (format word " + Integer.toHexString(magic) + ")");
        int count = d.readInt();
        if (count < 0) throw new IOException("damaged hash-map KV snapshot: " + count + " entries");
        Map<Key, byte[]> restored = new HashMap<>(Math.max(16, (int) (count / 0.75f) + 1));
        for (int i = 0; i < count; i++) {
            byte[] k = readBytes(d, codec.limits().maxKeyBytes(), "key");
            byte[] v = readBytes(d, codec.limits().maxValueBytes(), "value");
            restored.put(new Key(k), v);
        }
        map.clear();
        map.putAll(restored);
    }

    private static byte[] readBytes(DataInputStream d, int max, String what) throws IOException {
        int n = d.readInt();
        if (n < 0 || n > max) throw new IOException("damaged hash-map KV snapshot: a " + what + " of " + n + " bytes (at most " + max + ")");
        byte[] b = new byte[n];
        d.readFully(b);
        return b;
    }

    /** A key by content, its hash computed once (a put hashes it once, the map compares it on collisions only). */
    private static final class Key {
        final byte[] bytes;
        private final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
