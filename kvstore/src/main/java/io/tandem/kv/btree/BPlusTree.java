package io.tandem.kv.btree;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * An in-memory B+-tree from byte-string keys (unsigned lexicographic order) to byte-array values,
 * for one writer and any number of concurrent readers.
 *
 * <p><b>Concurrency.</b> The tree is persistent (copy-on-write): a write copies the nodes on one
 * root-to-leaf path and then publishes the new root with a single volatile write. Readers never
 * lock and never retry: {@link #get}, {@link #scan} and {@link #snapshot} read whatever version is
 * published at that moment, and a {@link TreeSnapshot} stays consistent for as long as it is used,
 * whatever the writer does meanwhile. Writes must come from one thread at a time; overlapping
 * writes (or a write nested inside {@link #atomically}) fail fast with
 * {@link ConcurrentModificationException} instead of losing updates.
 *
 * <p><b>Ownership.</b> The tree stores the arrays it is given and hands out its own arrays on
 * reads, without copies. Callers must not modify a key or value after passing it in, nor an array
 * they got back.
 */
public final class BPlusTree {
    /** The smallest order that still makes a B+-tree: internal nodes of 2 to 3 children. */
    public static final int MIN_ORDER = 3;
    /** Node size limit that keeps a node's arrays small enough to copy on every write. */
    public static final int MAX_ORDER = 1024;
    /**
     * Default order: memory overhead near its floor (about 10 bytes per entry, see the module
     * README) while a write copies only about {@code height x 64} references.
     */
    public static final int DEFAULT_ORDER = 64;

    private final int order;
    private final Mutator mutator;
    private final AtomicBoolean writing = new AtomicBoolean();
    private volatile TreeSnapshot current;
    /** The open parallel segment (P-SMR parallel mode), or null. */
    private final java.util.concurrent.atomic.AtomicReference<Segment> segment = new java.util.concurrent.atomic.AtomicReference<>();
    /** Epochs of writes and parallel segments: each gets a new one, so no node of an earlier one is taken for its own. */
    private final java.util.concurrent.atomic.AtomicLong epochs = new java.util.concurrent.atomic.AtomicLong();
    /** The writer of the open {@link #batch}, or null; read only by the thread that opened it. */
    private Transaction batch;
    /** The thread that opened the batch, or null: only it may use or publish the batch. */
    private volatile Thread batchOwner;

    public BPlusTree() {
        this(DEFAULT_ORDER);
    }

    /**
     * @param order the maximum number of children of an internal node ({@value #MIN_ORDER} to
     *              {@value #MAX_ORDER}); a leaf holds at most {@code order - 1} entries
     */
    public BPlusTree(int order) {
        if (order < MIN_ORDER || order > MAX_ORDER) {
            throw new IllegalArgumentException("order must be in [" + MIN_ORDER + ", " + MAX_ORDER + "]: " + order);
        }
        this.order = order;
        this.mutator = new Mutator(order);
        this.current = TreeSnapshot.empty(order);
    }

    public int order() {
        return order;
    }

    /** The latest published version; consistent and immutable, usable from any thread. */
    public TreeSnapshot snapshot() {
        return current;
    }

    /** The value of {@code key} in the latest version, or {@code null}. Any thread. */
    public byte[] get(byte[] key) {
        return current.get(key);
    }

    /** A page of the latest version; see {@link TreeSnapshot#scan}. Any thread. */
    public ScanPage scan(byte[] from, byte[] to, int limit) {
        return current.scan(from, to, limit);
    }

    /** Entries in the latest version. Any thread. */
    public int size() {
        return current.size();
    }

    /** Sets {@code key} to {@code value} and publishes; returns the previous value or {@code null}. */
    public byte[] put(byte[] key, byte[] value) {
        beginWrite();
        boolean done = false;
        try {
            byte[] previous = mutator.put(key, value);
            done = true;
            return previous;
        } finally {
            endWrite(done);
        }
    }

    /** Deletes {@code key} and publishes; returns the previous value or {@code null}. */
    public byte[] remove(byte[] key) {
        beginWrite();
        boolean done = false;
        try {
            byte[] previous = mutator.remove(key);
            done = true;
            return previous;
        } finally {
            endWrite(done);
        }
    }

    /** See {@link TreeWriter#compareAndSet}; publishes if it applied a change. */
    public CasOutcome compareAndSet(byte[] key, byte[] expected, byte[] update) {
        beginWrite();
        boolean done = false;
        try {
            CasOutcome outcome = mutator.compareAndSet(key, expected, update);
            done = true;
            return outcome;
        } finally {
            endWrite(done);
        }
    }

    /**
     * Runs several writes that readers see all at once or not at all: the new version is published
     * once, when {@code work} returns. If {@code work} throws, nothing is published (the changes are
     * simply dropped, since no published node was modified) and the exception propagates.
     * The writer is valid only during the call.
     */
    public void atomically(Consumer<? super TreeWriter> work) {
        Objects.requireNonNull(work, "work");
        beginWrite();
        boolean done = false;
        try (Transaction transaction = new Transaction(mutator)) {
            work.accept(transaction);
            done = true;
        } finally {
            endWrite(done);
        }
    }

    /**
     * A writer whose changes readers see only at the next {@link #publish} (or the next other write
     * of this thread, which publishes first): the batch stays open across calls, so a run of writes
     * copies each node on its paths once instead of once per write (path copying is the cost of a
     * write). Opens a batch if this thread has none; returns the same writer until it is published.
     * Readers meanwhile see the latest published version, whole. Only the thread that opened the
     * batch may use its writer; any other write meanwhile fails fast as {@link #put} explains.
     *
     * <p>A batch write that throws an unchecked exception midway (only argument checks do, before
     * changing anything) leaves the batch as it was before that write.
     */
    public TreeWriter batch() {
        adoptOrphanedBatch();
        if (batchOwner == Thread.currentThread()) return batch;
        beginWrite();
        batch = new Transaction(mutator);
        batchOwner = Thread.currentThread();
        return batch;
    }

    /**
     * Publishes the batch this thread opened, if any: its writes become the latest version at once.
     * On any other thread it does nothing (a reader cannot publish another thread's batch).
     */
    public void publish() {
        adoptOrphanedBatch();
        if (batchOwner != Thread.currentThread()) return;
        Transaction open = batch;
        batch = null;
        batchOwner = null;
        open.close();
        endWrite(true);
    }

    /** Whether this thread has a batch open that {@link #publish} would publish. */
    public boolean batchOpen() {
        adoptOrphanedBatch();
        return batchOwner == Thread.currentThread();
    }

    /**
     * A batch whose thread has ended becomes the calling thread's: a writer may keep a batch open across its
     * calls for long (a state machine that publishes on demand, issue 25), and the thread that writes next (an
     * execution thread started anew) must be able to publish and continue it rather than fail. Safe because a
     * thread's last action happens-before another thread's seeing it terminated ({@link Thread#isAlive} false,
     * JLS 17.4.4), so its writes to the batch are visible here.
     */
    private void adoptOrphanedBatch() {
        Thread owner = batchOwner;
        if (owner != null && owner != Thread.currentThread() && !owner.isAlive()) batchOwner = Thread.currentThread();
    }

    /** Streams the latest version; see {@link TreeSnapshot#writeTo}. Any thread. */
    public void writeSnapshot(OutputStream out) throws IOException {
        current.writeTo(out);
    }

    /**
     * Streams the latest version with its shape (snapshot format version 2): restored into a tree of
     * the same order, it gives exactly these nodes, which optimistic P-SMR's safety check needs (its
     * verdicts depend on leaf fill and leaf bounds). Any thread.
     */
    public void writeShapedSnapshot(OutputStream out) throws IOException {
        SnapshotFormat.write(current, out, true);
    }

    /**
     * Replaces the whole content with a stream written by {@link TreeSnapshot#writeTo} (with any
     * order), bulk-loading the nodes bottom-up. The stream is read to its end. The new content is
     * published only after the checksum has been verified; on any error the tree is unchanged.
     *
     * @throws IOException if the stream is truncated, corrupt or of an unknown format version
     */
    public void restore(InputStream in) throws IOException {
        Objects.requireNonNull(in, "in");
        beginWrite();
        try {
            current = SnapshotFormat.read(in, order);
        } finally {
            endWrite(false);
        }
    }

    // ---------------------------------------------------------------- parallel mode (P-SMR)

    /**
     * Where a key's leaf lies, as the safety check of optimistic P-SMR needs it (opt-psmr.md §4.4):
     * the leaf's fill and the tightest bounds along the whole root-to-leaf path (pitfall 14), keys in
     * {@code [low, high)}, null for an open end.
     *
     * @param entries  entries in the leaf
     * @param low      smallest key the leaf may hold, or null (no lower bound)
     * @param high     keys below it, or null (no upper bound)
     * @param root     the leaf is the root (no fill minimum)
     * @param contains the key is in the leaf
     */
    public record LeafView(int entries, byte[] low, byte[] high, boolean root, boolean contains) {}

    /**
     * The leaf of {@code key} in the current parallel segment. Any worker; deterministic when the
     * leaf lies in the caller's partition or the key is the caller's (only it changes them now).
     */
    public LeafView leafOf(byte[] key) {
        Segment s = segment.get();
        Node n = s != null ? s.root() : current.root();
        byte[] low = null;
        byte[] high = null;
        boolean root = true;
        while (n instanceof Node.Internal in) {
            int i = Node.childIndex(in, key);
            if (i > 0) low = in.keys[i - 1];
            if (i < in.keys.length) high = in.keys[i];
            n = Segment.child(in, i);
            root = false;
        }
        Node.Leaf leaf = (Node.Leaf) n;
        return new LeafView(leaf.keys.length, low, high, root, Node.search(leaf, key) >= 0);
    }

    /** Most entries a leaf holds; an insert into a full leaf splits it. */
    public int maxLeafEntries() {
        return mutator.maxLeafEntries;
    }

    /** Fewest entries a non-root leaf holds; a delete below it rebalances. */
    public int minLeafEntries() {
        return mutator.minLeafEntries;
    }

    /** The value of {@code key} as parallel workers see it (the open segment, or the published version). */
    public byte[] getConcurrent(byte[] key) {
        Segment s = segment.get();
        return s != null ? s.get(key) : current.get(key);
    }

    /**
     * Parallel mode: sets {@code key} from worker {@code worker} (0..63) while other workers write
     * elsewhere. The key must be the worker's and, if absent, its leaf must lie in the worker's
     * partition with room (the caller's safety check); otherwise {@link IllegalStateException}.
     */
    public byte[] putConcurrent(int worker, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return openSegment().put(worker, key, value);
    }

    /** Parallel mode: deletes {@code key}; see {@link #putConcurrent}: the leaf must not underflow. */
    public byte[] removeConcurrent(int worker, byte[] key) {
        Objects.requireNonNull(key, "key");
        return openSegment().remove(worker, key);
    }

    /**
     * Every worker is paused: publishes what the parallel segment wrote as the latest version and
     * closes it (the next parallel write opens a new one). Any exclusive write does this first.
     */
    public void publishSegment() {
        Segment s = segment.getAndSet(null);
        if (s != null) current = s.finish();
    }

    private Segment openSegment() {
        Segment s = segment.get();
        if (s != null) return s;
        if (batchOwner != null) throw new IllegalStateException("a batch is open: publish it before writing in parallel");
        Segment fresh = new Segment(epochs.incrementAndGet(), current, mutator);
        Segment witness = segment.compareAndExchange(null, fresh);
        return witness == null ? fresh : witness;
    }

    /** Structural change counts, for tests. Read it only from the writer thread. */
    StructureCounters structureCounters() {
        return mutator.counters;
    }

    private void beginWrite() {
        adoptOrphanedBatch();
        if (batchOwner == Thread.currentThread()) publish(); // this thread's own batch goes first
        if (!writing.compareAndSet(false, true)) {
            throw new ConcurrentModificationException(
                    "another write is in progress: a BPlusTree takes writes from one thread at a time, "
                            + "and a write must not be nested inside atomically()");
        }
        publishSegment(); // an exclusive write runs with every parallel worker paused
        mutator.begin(current, epochs.incrementAndGet());
    }

    private void endWrite(boolean publish) {
        TreeSnapshot next = mutator.finish();
        if (publish && next != null) current = next;
        writing.set(false);
    }

    /** The writer handed to {@link #atomically}; it refuses use after the call returns. */
    private static final class Transaction implements TreeWriter, AutoCloseable {
        private final Mutator mutator;
        private boolean open = true;

        Transaction(Mutator mutator) {
            this.mutator = mutator;
        }

        private Mutator mutator() {
            if (!open) throw new IllegalStateException("this writer is no longer open: use it only inside atomically()");
            return mutator;
        }

        @Override
        public byte[] get(byte[] key) {
            return mutator().get(key);
        }

        @Override
        public byte[] put(byte[] key, byte[] value) {
            return mutator().put(key, value);
        }

        @Override
        public byte[] put(byte[] buffer, int from, int to, byte[] value) {
            return mutator().put(buffer, from, to, value);
        }

        @Override
        public byte[] remove(byte[] key) {
            return mutator().remove(key);
        }

        @Override
        public CasOutcome compareAndSet(byte[] key, byte[] expected, byte[] update) {
            return mutator().compareAndSet(key, expected, update);
        }

        @Override
        public int size() {
            return mutator().size();
        }

        @Override
        public void close() {
            open = false;
        }
    }
}
