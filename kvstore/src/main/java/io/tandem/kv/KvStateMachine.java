package io.tandem.kv;

import io.tandem.kv.KvCommand.CompareAndSet;
import io.tandem.kv.KvCommand.Delete;
import io.tandem.kv.KvCommand.Put;
import io.tandem.kv.KvQuery.Get;
import io.tandem.kv.KvQuery.Scan;
import io.tandem.kv.btree.BPlusTree;
import io.tandem.kv.btree.CasOutcome;
import io.tandem.kv.btree.Entry;
import io.tandem.kv.btree.TreeSnapshot;
import io.tandem.statemachine.StateMachine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The replicated key-value service: a {@link BPlusTree} driven by {@link KvCodec}-encoded commands
 * and queries.
 *
 * <p>{@link #apply} never throws for bad input: a malformed, oversized or unknown request becomes a
 * {@link KvResult.Failed} result with a {@link KvException.Reason}, identically on every replica,
 * and changes nothing. Results depend only on the state and the command, as replication requires.
 *
 * <p>Threads: {@link #apply} and {@link #restore} come from one execution thread (the
 * {@link StateMachine} contract). {@link #query}, {@link #read} and {@link #snapshot} only read the
 * tree's latest published version, so they may also run on other threads, concurrently with
 * apply, and each sees the state after some whole command.
 */
public final class KvStateMachine implements StateMachine {
    private final BPlusTree tree;
    private final KvCodec codec;

    public KvStateMachine() {
        this(KvLimits.DEFAULTS, BPlusTree.DEFAULT_ORDER);
    }

    public KvStateMachine(KvLimits limits, int treeOrder) {
        this.tree = new BPlusTree(treeOrder);
        this.codec = new KvCodec(limits);
    }

    public KvCodec codec() {
        return codec;
    }

    /** The latest state, read-only and immutable; for inspection, digests and tests. */
    public TreeSnapshot state() {
        return tree.snapshot();
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        KvResult result;
        try {
            result = execute(codec.decodeCommand(command));
        } catch (KvException e) {
            result = new KvResult.Failed(e.reason(), e.getMessage());
        }
        return codec.encode(result);
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
     * Applies a decoded command. Checks the limits again (a command may come from an embedding
     * program rather than the codec) and returns {@link KvResult.Failed} instead of throwing.
     * The tree keeps the command's arrays: do not modify them afterwards.
     */
    public KvResult execute(KvCommand command) {
        Objects.requireNonNull(command, "command");
        try {
            codec.validate(command);
        } catch (KvException e) {
            return new KvResult.Failed(e.reason(), e.getMessage());
        }
        return switch (command) {
            case Put(byte[] key, byte[] value) -> previous(tree.put(key, value));
            case Delete(byte[] key) -> previous(tree.remove(key));
            case CompareAndSet(byte[] key, byte[] expected, byte[] update) -> {
                CasOutcome outcome = tree.compareAndSet(key, expected, update);
                yield outcome.applied() ? new KvResult.CasSucceeded() : new KvResult.CasFailed(outcome.previous());
            }
        };
    }

    /**
     * Answers a decoded query from the latest state; returns {@link KvResult.Failed} instead of
     * throwing. The arrays in the result are the tree's own: do not modify them.
     */
    public KvResult read(KvQuery query) {
        Objects.requireNonNull(query, "query");
        try {
            codec.validate(query);
        } catch (KvException e) {
            return new KvResult.Failed(e.reason(), e.getMessage());
        }
        return switch (query) {
            case Get(byte[] key) -> previous(tree.get(key));
            case Scan(byte[] from, byte[] to, int limit) -> scan(tree.snapshot(), from, to, limit);
        };
    }

    private KvResult.Page scan(TreeSnapshot version, byte[] from, byte[] to, int requestedLimit) {
        int limit = Math.min(requestedLimit, codec.limits().maxScanEntries());
        long byteBudget = codec.limits().maxScanBytes();
        List<Entry> entries = new ArrayList<>(Math.min(limit, 64));
        byte[][] nextFrom = {null};
        long[] bytes = {0};
        version.forEach(from, to, (key, value) -> {
            long size = (long) key.length + value.length;
            if (entries.size() == limit || (!entries.isEmpty() && bytes[0] + size > byteBudget)) {
                nextFrom[0] = key;
                return false;
            }
            entries.add(new Entry(key, value));
            bytes[0] += size;
            return true;
        });
        return new KvResult.Page(entries, nextFrom[0]);
    }

    private static KvResult previous(byte[] value) {
        return value == null ? new KvResult.NotFound() : new KvResult.Found(value);
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        tree.writeSnapshot(out);
    }

    @Override
    public void restore(InputStream in) throws IOException {
        tree.restore(in);
    }
}
