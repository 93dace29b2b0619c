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
import io.tandem.kv.btree.TreeWriter;
import io.tandem.execution.ParallelStateMachine;
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
 *
 * <p><b>Parallel execution</b> (P-SMR, opt-psmr.md §4). Keys are range-partitioned among the
 * workers ({@link KeyPartitioning}). A put, delete or compare-and-set may insert or remove a key,
 * which may split or merge nodes: conservatively (CC-G) it goes to every worker, optimistically
 * (OC-G) to its key's worker only. A compare-and-set that can only change an existing value or
 * nothing ({@code expected} and {@code update} both set, or both null) never changes the shape, so
 * it goes to its key's worker both ways and is never checked. The safety check passes when the
 * command changes no shape: it updates an existing key or changes nothing, or it inserts into a
 * leaf with room, or deletes from a leaf that stays at or above its minimum, and that leaf's whole
 * key range (bounds along the root-to-leaf path) lies in the worker's partition. It reads only the
 * worker's key and leaves no other worker changes, so every replica reaches the same verdict; it
 * never changes state, so nothing is rolled back. Concurrent execution writes through the tree's
 * parallel segment, which refuses any structural change.
 *
 * <p><b>Batches.</b> Once the executor has ended a batch ({@link #endBatch}, the sequential executor's
 * flush), commands write into one open tree batch that stays open across batches and is published
 * only on demand (issue 25: an open batch copies each B+-tree node on its paths once, not once per
 * put, and a published node must be copied before it changes): by a query, a snapshot or
 * {@link #state()} on the execution thread, which publish first and so see every command applied; at
 * the {@link #endBatch} after a reader on another thread asked ({@link #state()}); and at least every
 * {@value #MAX_UNPUBLISHED_BATCHES} batches. Other threads see a whole published version, at most that
 * many batches old. Reads of a server reach the tree only through its executor, on the execution thread.
 */
public final class KvStateMachine implements ParallelStateMachine {
    private final BPlusTree tree;
    private final KvCodec codec;
    private final KeyPartitioning partitioning;

    public KvStateMachine() {
        this(KvLimits.DEFAULTS, BPlusTree.DEFAULT_ORDER);
    }

    public KvStateMachine(KvLimits limits, int treeOrder) {
        this(limits, treeOrder, KeyPartitioning.uniformPrefix());
    }

    public KvStateMachine(KvLimits limits, int treeOrder, KeyPartitioning partitioning) {
        this.tree = new BPlusTree(treeOrder);
        this.codec = new KvCodec(limits);
        this.partitioning = java.util.Objects.requireNonNull(partitioning, "partitioning");
    }

    public KeyPartitioning partitioning() {
        return partitioning;
    }

    // ---------------------------------------------------------------- ParallelStateMachine

    @Override
    public Route route(byte[] command, int threads) {
        KvCommand c;
        try {
            c = codec.decodeCommand(command);
        } catch (KvException e) {
            return new Route(1L, ParallelStateMachine.all(threads)); // answered with an error, alone
        }
        int worker = partitioning.workerOf(c.key(), threads);
        if (c instanceof CompareAndSet(byte[] k, byte[] expected, byte[] update) && (expected == null) == (update == null)) {
            return Route.only(worker); // changes an existing value or nothing: never a structural change
        }
        return Route.everywhere(threads, worker);
    }

    @Override
    public boolean safe(byte[] command, int worker, int threads) {
        KvCommand c;
        try {
            c = codec.decodeCommand(command);
            codec.validate(c);
        } catch (KvException e) {
            return true; // changes nothing: answered with an error
        }
        BPlusTree.LeafView leaf = tree.leafOf(c.key());
        boolean inserts;
        switch (c) {
            case Put p -> {
                if (leaf.contains()) return true; // an update in place
                inserts = true;
            }
            case Delete d -> {
                if (!leaf.contains()) return true; // a no-op
                inserts = false;
            }
            case CompareAndSet(byte[] k, byte[] expected, byte[] update) -> {
                boolean matches = leaf.contains() ? expected != null && java.util.Arrays.equals(tree.getConcurrent(k), expected) : expected == null;
                if (!matches) return true; // fails, changes nothing
                if (update != null && leaf.contains()) return true; // an update in place
                if (update == null && !leaf.contains()) return true; // deletes nothing
                inserts = update != null;
            }
        }
        // (a) no structural change
        boolean fits = inserts ? leaf.entries() < tree.maxLeafEntries() : leaf.root() || leaf.entries() - 1 >= tree.minLeafEntries();
        // (b), (c): the leaf's whole range is this worker's, by the static partition bounds
        return fits && partitioning.covers(worker, threads, leaf.low(), leaf.high());
    }

    @Override
    public byte[] applyConcurrent(int worker, long index, byte[] command) {
        KvResult result;
        try {
            KvCommand c = codec.decodeCommand(command);
            codec.validate(c);
            result = switch (c) {
                case Put(byte[] key, byte[] value) -> previous(tree.putConcurrent(worker, key, value));
                case Delete(byte[] key) -> previous(tree.removeConcurrent(worker, key));
                case CompareAndSet(byte[] key, byte[] expected, byte[] update) -> {
                    byte[] current = tree.getConcurrent(key);
                    if (!java.util.Arrays.equals(current, expected)) yield new KvResult.CasFailed(current);
                    if (update != null) tree.putConcurrent(worker, key, update);
                    else if (current != null) tree.removeConcurrent(worker, key);
                    yield new KvResult.CasSucceeded();
                }
            };
        } catch (KvException e) {
            result = new KvResult.Failed(e.reason(), e.getMessage());
        }
        return codec.encode(result);
    }

    @Override
    public void quiesced() {
        tree.publishSegment();
    }

    /** Snapshots keep the tree's shape once a parallel executor runs this machine (see {@link BPlusTree#writeShapedSnapshot}). */
    private volatile boolean shapedSnapshots;

    @Override
    public void runsInParallel(int threads) {
        shapedSnapshots = true;
    }

    /** Set once the executor ends batches ({@link #endBatch}); execution thread only. */
    private boolean batched;
    /** {@link KvCodec#decodePut}'s answer, reused: commands reach applyForResult one at a time, and each call reads it at once. */
    private final KvCodec.PutInRange putInRange = new KvCodec.PutInRange();

    /**
     * At most this many ended batches go unpublished ({@link #endBatch}): what a reader on another thread
     * may be behind by when it has not asked. At ~40 puts per batch over a tree of ~200 leaves (10,000 keys,
     * order 64), 64 batches touch each leaf ~13 times: the tree copies a leaf for about one put in 13
     * instead of nearly every put.
     */
    static final int MAX_UNPUBLISHED_BATCHES = 64;
    /** Batches ended since the tree was last published; execution thread only. */
    private int unpublishedBatches;
    /** Set by a reader on another thread ({@link #state()}): the next {@link #endBatch} publishes. */
    private volatile boolean publishWanted;

    /**
     * Ends a batch. Publishes the tree to other threads only every {@value #MAX_UNPUBLISHED_BATCHES} batches,
     * or at once if a reader on another thread asked since ({@link #state()}): the {@link StateMachine#endBatch}
     * contract lets a machine hold its changes back from other threads (issue 25). Publishing at every batch
     * made the next batch copy every leaf it wrote (a published version may be read, so copy on write), about
     * one leaf copy per put (210-233 B/put on every replica); an open batch changes the leaves it already
     * copied in place. Reads and snapshots on the execution thread (the only ones a server serves) publish
     * first ({@link #query}, {@link #snapshot}), so they see every command applied; a reader on another
     * thread sees a whole published version, never a torn one (publication is one volatile write of a
     * version nobody changes afterwards).
     */
    @Override
    public void endBatch() {
        if (shapedSnapshots) { // a parallel executor writes from its workers: no batch may stay open across their writes
            tree.publish();
            return;
        }
        batched = true;
        if (++unpublishedBatches >= MAX_UNPUBLISHED_BATCHES || publishWanted) {
            publishWanted = false;
            unpublishedBatches = 0;
            tree.publish();
        }
    }

    public KvCodec codec() {
        return codec;
    }

    /**
     * The latest state, read-only and immutable; for inspection, digests and tests (see "Batches" above). On
     * the execution thread, every command applied; on another thread, the last published version, and the
     * next {@link #endBatch} publishes (ask again after it to see that batch).
     */
    public TreeSnapshot state() {
        if (!publishOwnBatch()) publishWanted = true;
        return tree.snapshot();
    }

    /** On the thread of the open batch (execution), publishes it and returns true; elsewhere does nothing. */
    private boolean publishOwnBatch() {
        if (!tree.batchOpen()) return false;
        tree.publish();
        unpublishedBatches = 0; // only the batch's thread counts
        return true;
    }

    /** The version other threads see now, without asking for a newer one (tests). */
    TreeSnapshot published() {
        return tree.snapshot();
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        return codec.encode(applyForResult(index, command));
    }

    /**
     * {@link #apply} without the encoding: the {@link KvResult} is the executor's {@link io.tandem.statemachine.CommandResult}, encoded
     * only if somebody asks (issue 25: on a follower nobody does). It stays valid: a previous value is an
     * array the tree let go of, and the tree never writes into a value array.
     */
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
            // A put into the open batch looks its key up as a range of the entry (part 15): no key array, no command.
            if (batched && codec.decodePut(buffer, offset, length, putInRange)) {
                byte[] value = putInRange.value;
                putInRange.value = null;
                return previous(tree.batch().put(buffer, putInRange.keyFrom, putInRange.keyTo, value));
            }
            return execute(codec.decodeCommand(buffer, offset, length));
        } catch (KvException e) {
            return new KvResult.Failed(e.reason(), e.getMessage());
        }
    }

    @Override
    public byte[] query(byte[] query) {
        publishOwnBatch(); // on the execution thread: every command applied so far (a no-op elsewhere)
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
        TreeWriter batch = batched ? tree.batch() : null;
        return switch (command) {
            case Put(byte[] key, byte[] value) -> previous(batch != null ? batch.put(key, value) : tree.put(key, value));
            case Delete(byte[] key) -> previous(batch != null ? batch.remove(key) : tree.remove(key));
            case CompareAndSet(byte[] key, byte[] expected, byte[] update) -> {
                CasOutcome outcome = batch != null ? batch.compareAndSet(key, expected, update) : tree.compareAndSet(key, expected, update);
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
        publishOwnBatch();
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
        publishOwnBatch();
        if (shapedSnapshots) tree.writeShapedSnapshot(out);
        else tree.writeSnapshot(out);
    }

    @Override
    public void restore(InputStream in) throws IOException {
        tree.restore(in);
    }
}
