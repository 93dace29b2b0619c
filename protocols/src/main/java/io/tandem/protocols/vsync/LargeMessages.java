package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.protocols.vsync.rdmc.Schedule;
import io.tandem.protocols.vsync.rdmc.Session;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One member's RDMC side of one shard for one view (derecho.md §3.3, §3.4): the payloads of the
 * shard's large messages, moved in blocks along a binomial pipeline while the SMC ring carries only
 * their headers. One RDMC group per sender, its members the shard's rotated so that the sender has
 * RDMC rank 0 (§3.1). A deterministic state machine like the rest of the engine: blocks and ready
 * signals travel as engine messages ({@link VsyncMessage.RdmcBlock}, {@link VsyncMessage.RdmcReady})
 * through {@link Link}.
 *
 * <p><b>Successive messages overlap (pipelining).</b> Derecho runs one transfer per sender at a time.
 * On loopback that leaves a small large message (64-256 KiB) bound by its hops: the header in the SST,
 * the receiver's ask, the block, the receiver's count back, then the next message. Here a sender may
 * have several transfers that some shard member does not hold yet ({@link #senderFree}, below),
 * and a receiver starts its part in every large message whose header it has read, not only the one it
 * counts next ({@link ShardState}'s look-ahead calls {@link #payload} for the headers behind an incomplete
 * one). Each transfer is its own {@link Session} with its own receive buffer, so one waiting for a block
 * stops none of the others. What this changes is only <i>when transfers start</i>, never <i>when a
 * message counts</i>: the shard still counts a sender's message k as received only once k's whole
 * payload is here and everything of that sender before k counts (it reads the ring in order and stops at
 * the first incomplete payload). So stability and the ragged trim still cover only payloads every
 * member holds, and the safety argument below is unchanged.
 *
 * <p><b>How many at once: a count and bytes (session 14).</b> A sender may start another large message
 * while fewer than {@link #PIPELINE} (4) of its large messages are unheld (some shard member has not counted
 * it), whatever their size, or while fewer than {@link #MAX_PIPELINE} (16) are unheld and they and the new one
 * hold at most {@link #PIPELINE_BYTES} (4 MiB). One transfer costs four one-way hops before the sender learns
 * it is held (header in the SST, the ask, the block, the count back in the SST); with 4 at once a 64 KiB
 * message was bound by those hops (about one message per hop), with 16 the SMC window W is the bound. From
 * 1 MiB up the bytes rule leaves the count at 4, as before. Safety does not depend on the count: it changes
 * only when transfers start, as above.
 *
 * <p><b>Which transfers are kept.</b> Per sender the newest ones started, oldest first; the oldest is
 * forgotten only when a newer one j starts and either more than {@code MAX_PIPELINE} are kept, or more than
 * {@code PIPELINE} are kept and together (j included) they hold more than {@code PIPELINE_BYTES}. That
 * forgotten transfer o is held by every member, so nobody needs a block of it any more. Why: every member
 * starts the sender's large messages in the sender's order without skipping one (it reads the headers in ring
 * order), so the kept ones are consecutive large messages of the sender, and the unheld ones when j started
 * were a suffix of them (held means index below every member's count). The sender started j only while that
 * suffix S had fewer than {@code PIPELINE} messages, or fewer than {@code MAX_PIPELINE} holding with j at most
 * {@code PIPELINE_BYTES} (its view of the counts may be stale, which only makes S longer: conservative). If o
 * were in S, S would hold o and everything after it before j: in the first case at least {@code MAX_PIPELINE}
 * messages, in the second at least {@code PIPELINE} messages holding with j more than {@code PIPELINE_BYTES};
 * neither fits the rule. A receiver's transfer that it has not counted yet is therefore never forgotten.
 * Memory: at most {@code MAX_PIPELINE} transfers per sender, and more than {@code PIPELINE} only while they
 * hold at most {@code PIPELINE_BYTES} in all, so at most max(4 MiB, {@code PIPELINE} &times;
 * {@code maxLargePayloadBytes}) of receive buffers per sender; the window W holds delivered-but-not-stable
 * messages anyway.
 *
 * <p><b>The first block without an ask (session 15).</b> Every {@link Session} here is made with
 * {@code firstBlockUnasked}: a member sends a receiver's first block of a transfer as soon as it holds it, without
 * waiting for the receiver's ask (the origin right after writing the header). A 64 KiB message at n = 2 was a header,
 * an ask and a block; now it is a header and a block, one engine message and one hop fewer per receiver. The block may
 * come before this member has read the header (the header travels in the SST, the block as a message: no order
 * between them), so a block of a transfer not started yet is kept ({@link #onBlock}) until the header starts it,
 * like an early ask. Why that keeps memory bounded: a block is kept only for a transfer newer than every one this
 * member started, at most one block per transfer (a receiver's first block comes from one member in one step), and
 * such a transfer is one this member has not counted, so it is among its origin's unheld large messages, of which
 * the origin starts a new one only while fewer than {@code MAX_PIPELINE} are unheld and, beyond {@code PIPELINE}, they
 * hold at most {@code PIPELINE_BYTES} with the new one ({@link #senderFree}). So at most {@code MAX_PIPELINE} blocks
 * per origin, and at most max({@code PIPELINE_BYTES}, {@code PIPELINE} blocks) of bytes (a block being at most
 * {@code blockBytes + blockBytes / Session.TAIL_FRACTION}); beyond that (a stale or
 * forged block) it is dropped and counted, which is no worse than a lost block: the receiver's repeated ask brings it
 * again. Flow control is otherwise unchanged (every later block is asked for: one block in flight per receiver and
 * transfer), and so is safety: only when bytes move changed, not when a message counts.
 *
 * <p><b>How it meets the ordering layer.</b> A receiver learns of a large message from its SMC header
 * ({@link #payload}: the first call starts the transfer) and the shard counts the message as received
 * (its {@code received} column, hence {@code seq}) only once the whole payload is here. So a position is
 * stable (every member's {@code seq} covers it) only when every member of the shard holds the payload,
 * and the ragged trim, a minimum of {@code received} counters, covers only messages whose payload is
 * complete at every survivor (see {@link ShardState#receive}).
 *
 * <p><b>Links that lose messages.</b> Engine messages may be lost, duplicated or reordered (the
 * simulator's network; a TCP connection that breaks). The receiver's ask is the only thing that makes a
 * block move, so it is the one thing repeated: a receiver that got no block for
 * {@link #RETRY_TICKS} heartbeats asks again ({@link #tick}); a member asked again for a block it already
 * sent sends it again ({@link Session#onReady}); a duplicate block is refused by the session as out of
 * step and dropped here. An ask that arrives before this member has read the header (the header travels
 * in the SST, the ask as a message: no order between them) is kept until the transfer starts.
 */
final class LargeMessages {
    /** Where the component's messages go: the engine's {@code ctx.send}. */
    interface Link {
        void send(NodeId to, VsyncMessage message);
    }

    /** Heartbeats without a new block before a receiver repeats its ask. */
    static final int RETRY_TICKS = 3;
    /** Asks kept for transfers not started yet, per sender (more are dropped; the asker repeats). */
    static final int MAX_EARLY_ASKS = 256;
    /** Large messages per sender that may be under way at once whatever their size (see the class comment). */
    static final int PIPELINE = 4;
    /**
     * Large messages per sender that may be under way at once when they are small: beyond {@link #PIPELINE}, a
     * sender starts another only while its unheld ones and the new one add up to at most {@link #PIPELINE_BYTES}
     * (session 14, rdmc11: a 64 KiB message was bound by its hops, four messages per four-hop cycle). Also the
     * number of transfers a member keeps per sender.
     */
    static final int MAX_PIPELINE = 16;
    /** The bytes of a sender's unheld large messages beyond which only {@link #PIPELINE} of them may be under way. */
    static final long PIPELINE_BYTES = 4L << 20;

    private final long vid;
    private final String subgroup;
    private final int shard;
    private final List<NodeId> members;
    private final int self;
    private final int blockBytes;
    private final int maxBytes;
    private final Link link;
    /** Per sender (shard rank): its newest transfers, at most {@link #MAX_PIPELINE}, oldest first (class comment). */
    private final ArrayDeque<Transfer>[] transfers;
    /** Per sender: asks that arrived for a transfer this member has not started yet. */
    private final List<EarlyAsk>[] early;
    /** Per sender: first blocks that arrived, unasked, for a transfer this member has not started yet (class comment). */
    private final List<EarlyBlock>[] earlyBlocks;
    /** Per sender: the bytes of {@link #earlyBlocks}. */
    private final long[] earlyBlockBytes;
    /** The most bytes of early blocks kept per sender (class comment). */
    private final long maxEarlyBlockBytes;
    /** Schedules by block count (one group size per shard and view): computed once, not per transfer. */
    private final java.util.HashMap<Integer, Schedule> schedules = new java.util.HashMap<>();

    /** An ask kept until its transfer starts here, with who asked. */
    private record EarlyAsk(int fromRank, long index, int step) {}

    /** A block kept until its transfer starts here, with who sent it. */
    private record EarlyBlock(int fromRank, VsyncMessage.RdmcBlock block) {}

    long started;
    long completed;
    long blocksSent;
    long asksRepeated;
    long refused;
    /** Blocks that came before their header and were kept until it came. */
    long earlyBlocksKept;
    /** Transfers started while an earlier one of the same sender was still under way here. */
    long overlapped;

    private static final class Transfer {
        final int origin;
        final long index;
        final Session session;
        boolean complete;
        int lastProgress = -1;
        int quietTicks;

        Transfer(int origin, long index, Session session) {
            this.origin = origin;
            this.index = index;
            this.session = session;
        }
    }

    @SuppressWarnings("unchecked")
    LargeMessages(long vid, String subgroup, int shard, List<NodeId> members, int self, int blockBytes, int maxBytes, Link link) {
        this.vid = vid;
        this.subgroup = subgroup;
        this.shard = shard;
        this.members = List.copyOf(members);
        this.self = self;
        this.blockBytes = blockBytes;
        this.maxBytes = maxBytes;
        this.link = link;
        this.transfers = new ArrayDeque[members.size()];
        this.early = new List[members.size()];
        this.earlyBlocks = new List[members.size()];
        this.earlyBlockBytes = new long[members.size()];
        // A block may be up to blockBytes / TAIL_FRACTION longer than blockBytes (a short tail rides with the last one,
        // Session.blocksFor): PIPELINE first blocks of 1 MiB messages with the channel's prefix must fit, or the last one
        // is refused and waits for the repeated ask (3 heartbeats; rdmc15 measured 88 MB/s at 1 MiB with blockBytes here).
        this.maxEarlyBlockBytes = Math.max(PIPELINE_BYTES, (long) PIPELINE * (blockBytes + blockBytes / Session.TAIL_FRACTION));
        for (int i = 0; i < early.length; i++) {
            early[i] = new ArrayList<>();
            earlyBlocks[i] = new ArrayList<>();
            transfers[i] = new ArrayDeque<>();
        }
    }

    /**
     * Whether I may start another large message, of {@code size} bytes: fewer than {@link #PIPELINE} of mine are
     * under way that a shard member does not hold yet, or fewer than {@link #MAX_PIPELINE} holding with it at most
     * {@link #PIPELINE_BYTES} ({@code heldByAll} is the least of the members' received counts of my messages).
     */
    boolean senderFree(long heldByAll, int size) {
        int unheld = 0;
        long bytes = size;
        for (Transfer t : transfers[self]) {
            if (t.index < heldByAll) continue;
            unheld++;
            bytes += t.session.buffer().length;
        }
        // Any size: PIPELINE at once (session 13's rule). Small ones: more, up to MAX_PIPELINE, while they and the new
        // one hold at most PIPELINE_BYTES. Either way at most MAX_PIPELINE - 1 unheld before a new one, which is what
        // the forgetting rule (class comment, begin) needs.
        return unheld < PIPELINE || unheld < MAX_PIPELINE && bytes <= PIPELINE_BYTES;
    }

    /** Starts sending my message number {@code index}, whose header is in my ring slot {@code index}. */
    void send(long index, byte[] payload) {
        Session s = Session.sender(schedule(payload.length), blockBytes, payload, true);
        begin(new Transfer(self, index, s));
    }

    /**
     * The payload of large message {@code index} of sender {@code origin} (shard rank), whose header
     * announced {@code size} bytes: null while it is not complete here. The first call starts this
     * member's part in the transfer (it asks for its first block); calls come in the sender's order.
     */
    byte[] payload(int origin, long index, int size) {
        ArrayDeque<Transfer> mine = transfers[origin];
        Transfer t = find(origin, index);
        if (t == null) {
            // A header older than the transfers kept cannot be read again (the ring moved on); none is skipped.
            if (!mine.isEmpty() && mine.peekLast().index > index) return null;
            t = new Transfer(origin, index, Session.receiver(schedule(size), rdmcRank(origin, self), blockBytes, size, true));
            begin(t);
        }
        return t.complete ? t.session.buffer() : null;
    }

    /** Keeps {@code t} as its sender's newest transfer (forgetting the oldest ones every member holds, class comment) and starts it. */
    private void begin(Transfer t) {
        ArrayDeque<Transfer> mine = transfers[t.origin];
        for (Transfer u : mine) {
            if (!u.complete) {
                overlapped++;
                break;
            }
        }
        mine.addLast(t);
        // The oldest kept is held by every member, so it may go (class comment): beyond MAX_PIPELINE, and also beyond
        // PIPELINE when the kept ones hold more than PIPELINE_BYTES (so large messages keep PIPELINE buffers, as before).
        while (mine.size() > MAX_PIPELINE || mine.size() > PIPELINE && bytes(mine) > PIPELINE_BYTES) mine.pollFirst();
        started++;
        carry(t, t.session.start());
        replayEarly(t);
        replayEarlyBlocks(t);
    }

    private static long bytes(ArrayDeque<Transfer> kept) {
        long b = 0;
        for (Transfer t : kept) b += t.session.buffer().length;
        return b;
    }

    private Transfer find(int origin, long index) {
        for (Transfer t : transfers[origin]) if (t.index == index) return t;
        return null;
    }

    /** Whatever bytes of the payload have arrived, zeros elsewhere (only for the tests' broken twins). */
    byte[] partialPayload(int origin, long index) {
        Transfer t = find(origin, index);
        return t != null ? t.session.buffer() : null;
    }

    void onReady(NodeId from, VsyncMessage.RdmcReady m) {
        int fromRank = members.indexOf(from);
        if (fromRank < 0 || m.origin() < 0 || m.origin() >= members.size() || fromRank == m.origin()) {
            refused++;
            return;
        }
        Transfer t = find(m.origin(), m.index());
        Transfer newest = transfers[m.origin()].peekLast();
        if (t != null) {
            carry(t, t.session.onReady(rdmcRank(m.origin(), fromRank), m.step()));
        } else if ((newest == null || newest.index < m.index()) && early[m.origin()].size() < MAX_EARLY_ASKS) {
            early[m.origin()].add(new EarlyAsk(fromRank, m.index(), m.step())); // the header of that message has not reached me yet
        }
    }

    void onBlock(NodeId from, VsyncMessage.RdmcBlock m) {
        int fromRank = members.indexOf(from);
        if (fromRank < 0 || m.origin() < 0 || m.origin() >= members.size()) {
            refused++;
            return;
        }
        Transfer t = find(m.origin(), m.index());
        if (t == null && m.data() != null && m.origin() != self && keepEarly(fromRank, m)) return; // its header has not reached me yet
        if (t == null || m.data() == null) {
            refused++; // a block of a transfer I am not in (a copy that came late), or one whose frame did not hold its bytes
            return;
        }
        carry(t, t.session.onBlock(rdmcRank(m.origin(), fromRank), m.step(), m.block(), m.data(), m.offset(), m.length()));
    }

    /**
     * Keeps a block of a transfer newer than every one started here, sent before this member read its header (the
     * first block goes unasked): at most one per transfer and within the bounds of the class comment; false (refuse it)
     * for anything else.
     */
    private boolean keepEarly(int fromRank, VsyncMessage.RdmcBlock m) {
        Transfer newest = transfers[m.origin()].peekLast();
        if (newest != null && newest.index >= m.index()) return false;
        List<EarlyBlock> kept = earlyBlocks[m.origin()];
        for (EarlyBlock e : kept) if (e.block().index() == m.index()) return false; // a copy (a duplicating link, or a repeat)
        if (kept.size() >= MAX_PIPELINE || earlyBlockBytes[m.origin()] + m.length() > maxEarlyBlockBytes) return false;
        kept.add(new EarlyBlock(fromRank, m));
        earlyBlockBytes[m.origin()] += m.length();
        earlyBlocksKept++;
        return true;
    }

    /** Hands {@code t} the block kept for it, if any, and forgets those of transfers up to it (started, or passed). */
    private void replayEarlyBlocks(Transfer t) {
        List<EarlyBlock> kept = earlyBlocks[t.origin];
        if (kept.isEmpty()) return;
        EarlyBlock mine = null;
        for (java.util.Iterator<EarlyBlock> it = kept.iterator(); it.hasNext(); ) {
            EarlyBlock e = it.next();
            if (e.block().index() > t.index) continue;
            if (e.block().index() == t.index) mine = e;
            earlyBlockBytes[t.origin] -= e.block().length();
            it.remove();
        }
        if (mine != null) {
            VsyncMessage.RdmcBlock b = mine.block();
            carry(t, t.session.onBlock(rdmcRank(t.origin, mine.fromRank()), b.step(), b.block(), b.data(), b.offset(), b.length()));
        }
    }

    /** A heartbeat: a receiver whose transfer made no progress for {@link #RETRY_TICKS} beats asks again. */
    void tick() {
        for (int origin = 0; origin < transfers.length; origin++) {
            if (origin != self) for (Transfer t : transfers[origin]) repeatIfStalled(t);
        }
    }

    private void repeatIfStalled(Transfer t) {
        var waiting = t.session.waitingFor();
        if (waiting.isEmpty()) return;
        int progress = t.session.received();
        if (progress != t.lastProgress) {
            t.lastProgress = progress;
            t.quietTicks = 0;
            return;
        }
        if (++t.quietTicks < RETRY_TICKS) return;
        t.quietTicks = 0;
        asksRepeated++;
        carry(t, List.of(waiting.get()));
    }

    /** The transfers kept of each sender, with the blocks received of those not complete (for the engine's inspection). */
    String describe() {
        StringBuilder b = new StringBuilder();
        for (ArrayDeque<Transfer> mine : transfers) {
            for (Transfer t : mine) b.append(' ').append(members.get(t.origin)).append('#').append(t.index).append(t.complete ? "" : "(" + t.session.received() + " blocks)");
        }
        return b.toString();
    }

    private Schedule schedule(int size) {
        if (size > maxBytes) throw new IllegalArgumentException("a large message of " + size + " bytes exceeds the limit of " + maxBytes);
        int blocks = Session.blocksFor(size, blockBytes);
        Schedule s = schedules.get(blocks);
        if (s == null) {
            // A schedule is immutable and depends only on (n, blocks): messages of one size share one. Few sizes in
            // practice; the map is emptied if a workload of many sizes fills it.
            if (schedules.size() >= 64) schedules.clear();
            s = Schedule.of(Schedule.Algorithm.BINOMIAL_PIPELINE, members.size(), blocks);
            schedules.put(blocks, s);
        }
        return s;
    }

    private void replayEarly(Transfer t) {
        List<EarlyAsk> asks = early[t.origin];
        if (asks.isEmpty()) return;
        List<EarlyAsk> mine = new ArrayList<>();
        asks.removeIf(a -> {
            if (a.index() == t.index) mine.add(a);
            return a.index() <= t.index; // this transfer's, or one that is over
        });
        for (EarlyAsk a : mine) carry(t, t.session.onReady(rdmcRank(t.origin, a.fromRank()), a.step()));
    }

    private void carry(Transfer t, List<Session.Action> actions) {
        for (Session.Action a : actions) {
            switch (a) {
                case Session.Action.SendBlock s -> {
                    blocksSent++;
                    link.send(members.get(shardRank(t.origin, s.to())), new VsyncMessage.RdmcBlock(vid, subgroup, shard, t.origin, t.index, s.step(), s.block(), s.message(), s.offset(), s.length(), RequestIds.BACKGROUND));
                }
                case Session.Action.Ready r -> link.send(members.get(shardRank(t.origin, r.to())),
                        new VsyncMessage.RdmcReady(vid, subgroup, shard, t.origin, t.index, r.step(), RequestIds.BACKGROUND));
                case Session.Action.Completed c -> {
                    t.complete = true;
                    completed++;
                }
                case Session.Action.Refused r -> refused++;
            }
        }
    }

    /** RDMC rank of shard rank {@code member} in the group of sender {@code origin} (the sender is RDMC rank 0). */
    private int rdmcRank(int origin, int member) {
        int n = members.size();
        return (member - origin + n) % n;
    }

    private int shardRank(int origin, int rdmcRank) {
        return (origin + rdmcRank) % members.size();
    }
}
