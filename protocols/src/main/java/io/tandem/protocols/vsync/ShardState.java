package io.tandem.protocols.vsync;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.VsyncEngine.Held;
import io.tandem.protocols.vsync.VsyncEngine.Outgoing;
import io.tandem.sst.Sst;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One member's part in one shard for one view (derecho.md §4.1): the shard's own SMC ordering over
 * its subgroup's block of SST columns. Messages go into my ring of the block, are copied out of the
 * other shard members' rings, and are delivered in the shard's round-robin order once every shard
 * member holds them (the minimum of the shard's {@code seq} column); idle senders emit nulls. A new
 * object per view and shard: nothing of a shard's counters survives a view change, so membership
 * changes of a shard are just a new object over the new members.
 */
final class ShardState {
    /** What a shard needs from its engine. */
    interface Host {
        /** Hands a delivered message (never a null) to the application, at its place in the shard's order. */
        void deliver(ShardState shard, NodeId sender, Held h);

        /** A shard member's ring shows data that cannot be right (a lost or malformed write): a failure of that member. */
        void suspect(NodeId member);

        /** Whether {@code member}'s row carries the current view. */
        boolean inView(NodeId member);

        /** Sends an RDMC message of this shard's large messages to a shard member. */
        void send(NodeId to, VsyncMessage message);

        /** The payload of a large message once complete at this member, else null: {@link LargeMessages#payload} (a broken twin in the tests answers otherwise). */
        default byte[] largePayload(ShardState shard, int origin, long index, int size) {
            return shard.large.payload(origin, index, size);
        }
    }

    /** The kind bit of a slot whose payload is a large message's, travelling by RDMC (derecho.md §3.4): the slot holds the header only. */
    static final long LARGE = 0x80;
    /** The header word's low bits: the payload's length. */
    private static final long LENGTH_MASK = (1L << 56) - 1;

    final int subgroup;
    final String subgroupName;
    final int shardIndex;
    final List<NodeId> members;
    final int rank;
    final boolean raw;
    final VsyncRow.Block block;
    final ArrayDeque<Outgoing> queue;
    private final Sst sst;
    /** The shard members' rows by shard rank, looked up once (read on every poll). */
    private final Sst.Members rows;
    private final VsyncRow row;
    private final Host host;
    private final long vid;
    private final int window;
    private final int maxPayload;
    /** The shard's large messages (derecho.md §3.3), or null if the configuration turns them off. */
    final LargeMessages large;
    private final int smcPayload;
    private final int maxLarge;
    private final List<NodeId> others;
    /** The slots of the current send pass, published together at its end (derecho.md §3.2). */
    private final RingBatch batch;
    /** Scratch for a slot's header words as {@link #putInSlot} writes and {@link #receive} reads them (one engine thread). */
    private final long[] slotHeader = new long[6];

    final long[] received;
    /** Per sender (shard rank), the messages held and not yet delivered, from index {@link #heldBase} on (see {@link HeldRing}). */
    private final HeldRing[] held;
    /** Per sender (shard rank): the headers below this number had their transfer started by {@link #startAhead}. */
    private final long[] startedAhead;
    private final long[] heldBase;
    long sent;
    long delivered;
    /** A lower bound of the least, over the shard's members, of the counter the window reads (see {@link #windowOpen}). */
    private long windowFloor = Long.MIN_VALUE;
    /**
     * The hashes of the last {@code prefixHashes.length} delivered prefixes of this view, by count (a
     * ring: a view may last for billions of messages). The invariants compare two members' prefixes
     * at the shorter one, and the window keeps members within n*(W+1) positions of each other
     * (§3.6: no sender gets W past what every member delivered), so twice that is always enough.
     */
    private final long[] prefixHashes;
    private long deliveredInView;
    /** Per shard rank, the sender's part of a message's identity (computed once, not per message). */
    private final long[] senderHashes;
    private String violation;
    /**
     * Whether a message's identity in the prefix hashes covers every payload byte (the simulator's
     * engines, {@link VsyncEngine#hashWholePayloads}), or its length and three bytes (a per-byte pass
     * over every delivered payload at every member is no cost for production to pay).
     */
    private boolean wholePayloads;
    /** My row changed since the engine last pushed it (see {@link #takeRowChanged}). */
    private boolean rowChanged;
    /**
     * Whether a send pass leaves its guard to the engine's control push ({@link #guardWithCounters()}): only when
     * this shard is the view's one shard, so the control push's targets are this shard's other members.
     */
    private boolean guardWithCounters;
    /** A send pass moved the guard and did not push it: the engine's next flush must (see {@link #takeGuardPending}). */
    private boolean guardPending;

    @SuppressWarnings("unchecked")
    ShardState(Sst sst, VsyncRow row, Host host, long vid, int subgroup, String subgroupName, int shardIndex, List<NodeId> members, NodeId self, boolean raw,
            ArrayDeque<Outgoing> queue, VsyncConfig config) {
        this.sst = sst;
        this.row = row;
        this.host = host;
        this.vid = vid;
        this.subgroup = subgroup;
        this.subgroupName = subgroupName;
        this.shardIndex = shardIndex;
        this.members = List.copyOf(members);
        this.rows = sst.members(this.members);
        this.rank = members.indexOf(self);
        this.raw = raw;
        this.block = row.blocks.get(subgroup);
        this.queue = queue;
        this.window = config.window();
        this.maxPayload = config.slotBytes() - VsyncConfig.SLOT_HEADER;
        this.smcPayload = config.smcPayloadBytes();
        this.maxLarge = config.maxLargePayloadBytes();
        this.large = maxLarge > 0 ? new LargeMessages(vid, subgroupName, shardIndex, this.members, members.indexOf(self), config.rdmcBlockBytes(), maxLarge, host::send) : null;
        int n = members.size();
        received = new long[n];
        held = new HeldRing[n];
        for (int s = 0; s < n; s++) held[s] = new HeldRing();
        startedAhead = new long[n];
        heldBase = new long[n];
        List<NodeId> o = new ArrayList<>(members);
        o.remove(self);
        others = List.copyOf(o);
        batch = new RingBatch(row, block);
        prefixHashes = new long[Integer.highestOneBit(Math.max(1024, 2 * n * (window + 1)) - 1) << 1];
        senderHashes = new long[n];
        for (int s = 0; s < n; s++) senderHashes[s] = members.get(s).value().hashCode();
    }

    // ---- sending (derecho.md §3.2, §3.5, §3.6) ----

    int send() {
        int n = members.size();
        int work = 0;
        // Raw delivery has no round-robin order to keep moving: no nulls.
        long owed = raw ? 0 : RoundRobin.owed(received, n, rank);
        while (windowOpen()) {
            Outgoing o = queue.peek();
            if (o == null && sent >= owed) break;
            // At most LargeMessages.PIPELINE of my large messages under way that a member does not hold yet (derecho.md
            // §3.1 has one; successive ones overlap here, see LargeMessages): the next waits. Nothing of mine after it
            // counts anywhere before it does (per-sender FIFO), so neither later messages nor nulls could move the order.
            if (o != null && isLarge(o) && !large.senderFree(heldByAll(), o.payload().length)) break;
            if (o != null) queue.poll();
            else o = new Outgoing(VsyncEngine.NULL, 0, ClientRequest.Session.NONE, new byte[0]);
            putInSlot(o);
            work++;
        }
        // My received count of my own messages, stored once per pass instead of once per message. Safe: within the pass
        // only windowOpen() reads my column of it, and it takes my own count from sent (the same number); the row is
        // pushed after the pass, and the trim reads it only after wedging, when no send pass runs.
        if (work > 0) sst.set(block.received, rank, sent);
        // The pass's slots, then the guard once (R5); only to the shard (§2.4). With guardWithCounters the guard is
        // left for the engine's control push of this pass, one write per peer with my counters (ControlPush#pushWithGuard).
        if (batch.publish(sst, sent, others, !guardWithCounters) && guardWithCounters) guardPending = true;
        // My own messages are held at once, so they may complete a prefix of the order now: counted in this pass,
        // the new seq goes out with this pass's push instead of a push of its own from the next pass's receive.
        // The same value receive() would compute (the prefix of what I hold), only one pass sooner; it is pushed
        // after this pass's slots and guard, as it would have been.
        if (work > 0) advanceSeq();
        return work;
    }

    /**
     * My message number {@code sent} may go once every shard member delivered my message W places earlier (derecho.md §3.6).
     *
     * <p>The minimum over the members is kept ({@link #windowFloor}) and the rows are read again only when the kept
     * value no longer lets the next message go: a send pass of b messages read n rows per message (b·n acquiring reads
     * of the same few words), now n per pass plus n whenever the window closes. Safe: the counters read
     * ({@code delivered}, or {@code received} of my column in raw mode) are monotonic (§2.2) and written only by
     * their owners, so a minimum read earlier is a lower bound of the minimum now (R6: skipped values only make it
     * staler). A stale floor can only close the window early, never open it for a slot some member still needs; it is
     * then read again before the pass gives up.
     */
    private boolean windowOpen() {
        long k = sent - window;
        if (k < 0) return true;
        // Raw mode: every member received my message W places earlier, so its slot may be reused (derecho.md §3.6).
        long needed = raw ? k + 1 : RoundRobin.position(members.size(), rank, k) + 1;
        if (windowFloor >= needed) return true;
        long min = Long.MAX_VALUE;
        for (int m = 0; m < rows.size(); m++) {
            min = Math.min(min, !raw ? rows.get(m, block.delivered) : m == rank ? sent : rows.get(m, block.received, rank));
        }
        windowFloor = min;
        return min >= needed;
    }

    private boolean isLarge(Outgoing o) {
        return large != null && o.payload().length > smcPayload;
    }

    /** The least, over the shard's members, of how many of my messages they hold. */
    private long heldByAll() {
        long min = Long.MAX_VALUE;
        for (int m = 0; m < rows.size(); m++) min = Math.min(min, m == rank ? sent : rows.get(m, block.received, rank));
        return min;
    }

    private void putInSlot(Outgoing o) {
        int off = row.slotOffset(sent);
        boolean isLarge = isLarge(o);
        // Straight into my row: the header's six words, then the payload (one copy of the bytes, no slot array).
        // A large message's slot holds the header only; its payload goes by RDMC (derecho.md §3.4).
        long[] h = slotHeader;
        h[0] = (o.kind() | (isLarge ? LARGE : 0)) << 56 | o.payload().length;
        h[1] = vid << 32 | sent;
        h[2] = o.requestId();
        h[3] = o.session().clientId();
        h[4] = o.session().sequence();
        h[5] = o.session().lowWatermark();
        sst.writeWords(block.slots, off, h, 6);
        if (!isLarge) sst.write(block.slots, off + VsyncConfig.SLOT_HEADER, o.payload());
        int length = (VsyncConfig.SLOT_HEADER + (isLarge ? 0 : o.payload().length) + 7) / 8 * 8;
        if (isLarge) large.send(sent, o.payload());
        // My own message is held at once (a sender receives its own sends).
        held[rank].add(o.kind(), sent, o.requestId(), o.session(), o.payload());
        sent++;
        received[rank] = sent; // my row's word follows once per pass, in send()
        // Published with the rest of this pass's slots, then the guard in a separate write (derecho.md §2.5 R5).
        batch.add(sent - 1, length);
        rowChanged = true;
        if (raw) deliverRaw(rank); // raw: my own message is mine at once, in my order
    }

    // ---- receiving (derecho.md §3.2, §4.2) ----

    /** Copies new slots out of the shard members' rings; false if a member's ring showed a failure (it is suspected). */
    int receive(boolean wedged) {
        int work = 0;
        long[] header = slotHeader;
        for (int s = 0; s < members.size(); s++) {
            if (s == rank) continue;
            long available = rows.get(s, block.index);
            long before = received[s];
            try {
                while (received[s] < available) {
                    long k = received[s];
                    int off = row.slotOffset(k);
                    // Read after acquiring the guard (index): the slot's bytes are complete (R5). The header's first four
                    // words in one read of the row (one row lookup, not four).
                    rows.readWords(s, block.slots, off, header, 4);
                    boolean isLarge = ((header[0] >>> 56) & LARGE) != 0;
                    long size = header[0] & LENGTH_MASK;
                    int length = isLarge ? 0 : (int) (header[0] & 0xffffffL);
                    if (header[1] != (vid << 32 | k) || length > maxPayload || isLarge && (large == null || size <= smcPayload || size > maxLarge)) {
                        // The guard moved past a slot whose data never arrived (a write the transport lost), or the
                        // slot is malformed: a failure of the link (derecho.md §1.1). Never deliver from it.
                        host.suspect(members.get(s));
                        return work + 1;
                    }
                    long kind = (header[0] >>> 56) & ~LARGE;
                    byte[] payload;
                    if (isLarge) {
                        // Counted as received only once the whole payload is here (derecho.md §3.4): then stability (every
                        // member's seq) and the ragged trim (a minimum of received counts) cover only messages whose payload
                        // every member holds. Until then nothing of this sender after it counts either (per-sender FIFO).
                        payload = host.largePayload(this, s, k, (int) size);
                        if (payload == null) {
                            startAhead(s, k + 1, available);
                            break;
                        }
                    } else {
                        payload = rows.read(s, block.slots, off + VsyncConfig.SLOT_HEADER, length);
                    }
                    long requestId = header[2];
                    long clientId = header[3];
                    // A send without a session (every channel send) writes clientId 0 and the session's NONE words; only a
                    // session's sequence and watermark need reading (two fewer checked off-heap reads per message).
                    ClientRequest.Session session = clientId == 0 ? ClientRequest.Session.NONE
                            : new ClientRequest.Session(clientId, rows.readWord(s, block.slots, off + 32), rows.readWord(s, block.slots, off + 40));
                    held[s].add(kind, k, requestId, session, payload);
                    received[s] = k + 1;
                    work++;
                    if (raw && !wedged) deliverRaw(s);
                }
            } finally {
                // My received counter of this sender, stored once per sender and pass instead of once per message, on
                // every way out of the loop (a suspicion returns early). Safe: nothing reads this word between the
                // messages of one sender's loop (the row is pushed by the engine after the pass, and the trim, the
                // window and a large sender's next transfer read it only outside receive()), so every reader sees the
                // value it saw before: the count of the messages held, which only grows (§2.2).
                if (received[s] != before) {
                    sst.set(block.received, s, received[s]);
                    rowChanged = true;
                }
            }
        }
        advanceSeq();
        return work;
    }

    /** My seq: how many positions of the shard's order I hold without a gap. */
    private void advanceSeq() {
        long prefix = RoundRobin.prefix(received, members.size());
        if (prefix > sst.get(block.seq)) {
            sst.advance(block.seq, prefix);
            rowChanged = true;
        }
    }

    /**
     * Starts this member's part in the large messages of sender {@code s} whose headers are in its ring
     * behind an incomplete one ({@code from} up to the guard {@code available}, in order, none skipped, at
     * most {@link LargeMessages#PIPELINE}), so successive transfers overlap. Only starts them: none counts
     * before the loop above reaches it with its payload complete. A slot that looks wrong is left alone here;
     * the loop above suspects its sender when it gets there.
     */
    private void startAhead(int s, long from, long available) {
        int found = 0;
        for (long j = from; j < available && found < LargeMessages.MAX_PIPELINE; j++) {
            int off = row.slotOffset(j);
            long header = rows.readWord(s, block.slots, off);
            if (rows.readWord(s, block.slots, off + 8) != (vid << 32 | j)) return;
            if (((header >>> 56) & LARGE) == 0) continue;
            long size = header & LENGTH_MASK;
            if (size <= smcPayload || size > maxLarge) return;
            // Each header's transfer is started once (rdmc19): a later call for it only reports whether it completed,
            // which nobody reads here, and looked it up among the sender's kept transfers, for each of up to W headers on
            // every pass while the one in front is incomplete (10 % of the loops' samples at 64 KiB n = 3). A transfer
            // forgotten since is not started again either way (LargeMessages.payload returns null for one older than the
            // newest kept).
            if (j >= startedAhead[s]) {
                host.largePayload(this, s, j, (int) size);
                startedAhead[s] = j + 1;
            }
            found++;
        }
    }

    // ---- delivery (derecho.md §4.3, §4.5) ----

    /**
     * Whether my row's columns of this shard changed since the last call, and forgets it. The engine
     * pushes its row only after a change: a push on every poll would flood the links with copies of
     * an unchanged row (each one a write every other member applies and answers with its own work).
     */
    boolean takeRowChanged() {
        boolean c = rowChanged;
        rowChanged = false;
        return c;
    }

    /** How many positions every shard member holds: the minimum of the shard's {@code seq} column. */
    long stableCount() {
        long stable = Long.MAX_VALUE;
        // A row counts only if it carries this view (host.inView, read here by shard rank).
        for (int m = 0; m < rows.size(); m++) stable = Math.min(stable, rows.get(m, row.vid) == vid ? rows.get(m, block.seq) : 0);
        return stable;
    }

    /** My own held prefix of the shard's order (for the tests' broken twins). */
    long ownSeq() {
        return sst.get(block.seq);
    }

    int deliverStable(long stable) {
        if (raw) return 0;
        int n = members.size();
        int work = 0;
        // The whole stable range in one walk (derecho.md §4.3's loop): position g = k·n + s is followed by sender s + 1,
        // or by sender 0's next index after the last sender, so sender and index are computed once per call, not with a
        // division and a remainder per message. The same positions in the same order as senderOf/indexOf would give.
        int s = RoundRobin.senderOf(n, delivered);
        long k = RoundRobin.indexOf(n, delivered);
        while (delivered < stable) {
            Held h = take(s, k);
            if (h == null) {
                violation = "position " + delivered + " of shard " + name() + " (sender " + members.get(s) + " #" + k + ") is stable but not held";
                return work;
            }
            deliver(s, h);
            delivered++;
            work++;
            if (++s == n) {
                s = 0;
                k++;
            }
        }
        if (work > 0) {
            sst.advance(block.delivered, delivered);
            rowChanged = true;
        }
        return work;
    }

    private void deliverRaw(int s) {
        Held h = held[s].pollFirst();
        heldBase[s]++;
        deliver(s, h);
        delivered++;
        sst.advance(block.delivered, delivered);
        rowChanged = true;
    }

    /**
     * Epoch termination for this shard (derecho.md §5.6 step 2): delivers in round-robin order every
     * message with index below its sender's trim ({@code trim[s]}, by shard rank), skipping what lies
     * beyond a sender's trim (the code's rule); false if a message under the trim is not held.
     */
    boolean deliverTrimmed(long[] trim) {
        if (raw) return true;
        int n = members.size();
        long end = 0;
        for (int s = 0; s < n; s++) if (trim[s] > 0) end = Math.max(end, RoundRobin.position(n, s, trim[s] - 1) + 1);
        for (long g = delivered; g < end; g++) {
            int s = RoundRobin.senderOf(n, g);
            long k = RoundRobin.indexOf(n, g);
            if (k >= trim[s]) continue;
            Held h = take(s, k);
            if (h == null) {
                violation = "must deliver " + members.get(s) + " #" + k + " of shard " + name() + " under the trim of view " + vid + " but does not hold it";
                return false;
            }
            deliver(s, h);
        }
        return true;
    }

    /** My own messages the trim left out, in order (derecho.md §5.7, V9: they go again first in the next view). */
    List<Outgoing> beyondTrim(long myTrim) {
        List<Outgoing> out = new ArrayList<>();
        if (raw) return out;
        HeldRing mine = held[rank];
        for (int i = 0; i < mine.size(); i++) {
            Held h = mine.get(i);
            if (h.index() >= myTrim && h.kind() != VsyncEngine.NULL) out.add(new Outgoing(h.kind(), h.requestId(), h.session(), h.payload()));
        }
        return out;
    }

    private Held take(int s, long k) {
        while (heldBase[s] < k && !held[s].isEmpty()) {
            held[s].dropFirst();
            heldBase[s]++;
        }
        if (heldBase[s] != k || held[s].isEmpty()) return null;
        heldBase[s]++;
        return held[s].pollFirst();
    }

    /**
     * From now on a send pass sets its guard without pushing it; the engine pushes it in the pass's flush, in
     * one write with the pass's counters after the slots (derecho.md §2.5 R5 holds: the guard still goes in a
     * write of its own after every slot it covers, on the same per-peer FIFO). Only for the view's one shard.
     */
    void guardWithCounters() {
        guardWithCounters = true;
    }

    /** Whether a send pass left its guard unpushed since the last call, and forgets it. */
    boolean takeGuardPending() {
        boolean g = guardPending;
        guardPending = false;
        return g;
    }

    /** From now on, messages' identities cover their whole payloads (see {@link #wholePayloads}). */
    void hashWholePayloads() {
        wholePayloads = true;
    }

    private void deliver(int s, Held h) {
        long id = wholePayloads ? wholeMessageId(senderHashes[s], h) : messageId(senderHashes[s], h);
        long previous = deliveredInView == 0 ? vid : prefixHashes[(int) ((deliveredInView - 1) & (prefixHashes.length - 1))];
        prefixHashes[(int) (deliveredInView & (prefixHashes.length - 1))] = previous * 0x100000001b3L ^ id;
        deliveredInView++;
        if (h.kind() == VsyncEngine.NULL) return; // a null fills a turn and is never delivered (derecho.md §3.5)
        host.deliver(this, members.get(s), h);
    }

    /**
     * A message's identity for the prefix hashes the invariants compare. Within a view, (sender, index)
     * names one ring slot, written once, so sender, index, kind and request tell messages apart. Nothing
     * of the payload is read here, not even its length: the length sits in the array's header, in the
     * same cache line as its first bytes, and a delivered payload was copied out of the ring a window
     * earlier (or is the sender's own array from another thread), so reading it was a cache miss per
     * delivered message on the loop thread (vsync19b's profile at 1 KiB with 3 members: messageId 5.5 %
     * of all samples, self time). Hashing every byte at every member was 11 % (a scalar loop) and three
     * sampled bytes 13 % before (vsync15). Only the simulator's invariants read these hashes, and its
     * engines hash the length and every byte ({@link #wholeMessageId}); a production engine's hashes
     * only have to be computed, so what this identity covers changes no check.
     */
    static long messageId(long senderHash, Held h) {
        long x = senderHash * 31L + h.index();
        x = x * 31 + h.kind();
        x = x * 31 + h.requestId();
        return x * 0x9E3779B97F4A7C15L;
    }

    /**
     * {@link #messageId} with the payload's length and every byte in it: what the invariants of the
     * simulator compare, so two members that delivered different bytes at one position (a torn or
     * misplaced slot) disagree whatever bytes differ.
     */
    static long wholeMessageId(long senderHash, Held h) {
        long x = messageId(senderHash, h) * 31 + h.payload().length;
        return (x * 31 + Arrays.hashCode(h.payload())) * 0x9E3779B97F4A7C15L;
    }

    /** Positions delivered in this view (nulls included). */
    long deliveredInView() {
        return deliveredInView;
    }

    /** The hash of the first {@code count} positions delivered in this view. */
    long prefixHash(long count) {
        if (count == 0) return vid;
        if (count > deliveredInView || count <= deliveredInView - prefixHashes.length) {
            throw new IllegalArgumentException("the hash of the first " + count + " positions of " + name() + " is not kept (" + deliveredInView + " delivered, the last " + prefixHashes.length + " kept)");
        }
        return prefixHashes[(int) ((count - 1) & (prefixHashes.length - 1))];
    }

    String violation() {
        return violation;
    }

    /** The shard's address, {@code subgroup/index}. */
    String name() {
        return subgroupName + "/" + shardIndex;
    }

    ShardId id() {
        return new ShardId(subgroupName, shardIndex);
    }

    String describe() {
        return name() + " sent=" + sent + " received=" + Arrays.toString(received) + " delivered=" + delivered + (large != null && !large.describe().isEmpty() ? " rdmc:" + large.describe() : "");
    }

    /**
     * One sender's held messages in arrival order: parallel arrays used as a growable ring instead of a
     * queue of {@link Held} objects. A message is held from its receipt until its delivery, up to a window
     * of each sender's messages later (a ring's depth at 1 KiB); by then the {@code Held} allocated at its
     * receipt had left the cache, and reading it at delivery was a miss per message (vsync19's profile at
     * 1 KiB with 3 members: 11 % of the samples on taking it from the queue, 6 % on its identity). The
     * fields sit here side by side in arrays that delivery walks in order, and the {@code Held} handed on
     * is made at delivery. The same messages in the same order as the queue it replaces.
     */
    static final class HeldRing {
        private long[] kind = new long[16];
        private long[] index = new long[16];
        private long[] requestId = new long[16];
        private ClientRequest.Session[] session = new ClientRequest.Session[16];
        private byte[][] payload = new byte[16][];
        private long head;
        private long tail;

        void add(long kind, long index, long requestId, ClientRequest.Session session, byte[] payload) {
            if (tail - head == this.kind.length) grow();
            int i = (int) tail & (this.kind.length - 1);
            this.kind[i] = kind;
            this.index[i] = index;
            this.requestId[i] = requestId;
            this.session[i] = session;
            this.payload[i] = payload;
            tail++;
        }

        boolean isEmpty() {
            return head == tail;
        }

        int size() {
            return (int) (tail - head);
        }

        /** The {@code n}-th held message from the oldest (0 ≤ n < size), left in place. */
        Held get(int n) {
            int i = (int) (head + n) & (kind.length - 1);
            return new Held(kind[i], index[i], requestId[i], session[i], payload[i]);
        }

        /** Removes and returns the oldest, or null if none is held. */
        Held pollFirst() {
            if (head == tail) return null;
            Held h = get(0);
            dropFirst();
            return h;
        }

        /** Removes the oldest (the references go, so a delivered payload is not kept alive by the ring). */
        void dropFirst() {
            if (head == tail) return;
            int i = (int) head & (kind.length - 1);
            session[i] = null;
            payload[i] = null;
            head++;
        }

        private void grow() {
            int n = kind.length;
            long[] k2 = new long[2 * n];
            long[] i2 = new long[2 * n];
            long[] r2 = new long[2 * n];
            ClientRequest.Session[] s2 = new ClientRequest.Session[2 * n];
            byte[][] p2 = new byte[2 * n][];
            for (long x = head; x < tail; x++) {
                int from = (int) x & (n - 1);
                int to = (int) x & (2 * n - 1);
                k2[to] = kind[from];
                i2[to] = index[from];
                r2[to] = requestId[from];
                s2[to] = session[from];
                p2[to] = payload[from];
            }
            kind = k2;
            index = i2;
            requestId = r2;
            session = s2;
            payload = p2;
        }
    }
}
