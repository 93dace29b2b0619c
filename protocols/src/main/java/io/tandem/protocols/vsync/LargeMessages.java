package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.protocols.vsync.rdmc.Schedule;
import io.tandem.protocols.vsync.rdmc.Session;
import java.util.ArrayList;
import java.util.List;

/**
 * One member's RDMC side of one shard for one view (derecho.md §3.3, §3.4): the payloads of the
 * shard's large messages, moved in blocks along a binomial pipeline while the SMC ring carries only
 * their headers. One RDMC group per sender, its members the shard's rotated so that the sender has
 * RDMC rank 0 (§3.1); at most one transfer per sender at a time (the sender starts its next large
 * message only once every shard member holds the previous one, see {@link ShardState}). A
 * deterministic state machine like the rest of the engine: blocks and ready signals travel as engine
 * messages ({@link VsyncMessage.RdmcBlock}, {@link VsyncMessage.RdmcReady}) through {@link Link}.
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

    private final long vid;
    private final String subgroup;
    private final int shard;
    private final List<NodeId> members;
    private final int self;
    private final int blockBytes;
    private final int maxBytes;
    private final Link link;
    /** Per sender (shard rank): its current transfer, or null. */
    private final Transfer[] transfers;
    /** Per sender: asks that arrived for a transfer this member has not started yet. */
    private final List<EarlyAsk>[] early;

    /** An ask kept until its transfer starts here, with who asked. */
    private record EarlyAsk(int fromRank, long index, int step) {}

    long started;
    long completed;
    long blocksSent;
    long asksRepeated;
    long refused;

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
        this.transfers = new Transfer[members.size()];
        this.early = new List[members.size()];
        for (int i = 0; i < early.length; i++) early[i] = new ArrayList<>();
    }

    /** Whether no transfer of mine is under way that a shard member still lacks: {@code heldByAll} is the least of the members' received counts of my messages. */
    boolean senderFree(long heldByAll) {
        Transfer t = transfers[self];
        return t == null || heldByAll > t.index;
    }

    /** Starts sending my message number {@code index}, whose header is in my ring slot {@code index}. */
    void send(long index, byte[] payload) {
        Session s = Session.sender(schedule(payload.length), blockBytes, payload);
        Transfer t = new Transfer(self, index, s);
        transfers[self] = t;
        started++;
        carry(t, s.start());
        replayEarly(t);
    }

    /**
     * The payload of large message {@code index} of sender {@code origin} (shard rank), whose header
     * announced {@code size} bytes: null while it is not complete here. The first call starts this
     * member's part in the transfer (it asks for its first block).
     */
    byte[] payload(int origin, long index, int size) {
        Transfer t = transfers[origin];
        if (t == null || t.index < index) {
            Session s = Session.receiver(schedule(size), rdmcRank(origin, self), blockBytes, size);
            t = new Transfer(origin, index, s);
            transfers[origin] = t;
            started++;
            carry(t, s.start());
            replayEarly(t);
        } else if (t.index != index) {
            return null; // a header older than the transfer under way cannot be read again (the ring moved on)
        }
        return t.complete ? t.session.buffer() : null;
    }

    /** Whatever bytes of the payload have arrived, zeros elsewhere (only for the tests' broken twins). */
    byte[] partialPayload(int origin, long index) {
        Transfer t = transfers[origin];
        return t != null && t.index == index ? t.session.buffer() : null;
    }

    void onReady(NodeId from, VsyncMessage.RdmcReady m) {
        int fromRank = members.indexOf(from);
        if (fromRank < 0 || m.origin() < 0 || m.origin() >= members.size() || fromRank == m.origin()) {
            refused++;
            return;
        }
        Transfer t = transfers[m.origin()];
        if (t != null && t.index == m.index()) {
            carry(t, t.session.onReady(rdmcRank(m.origin(), fromRank), m.step()));
        } else if ((t == null || t.index < m.index()) && early[m.origin()].size() < MAX_EARLY_ASKS) {
            early[m.origin()].add(new EarlyAsk(fromRank, m.index(), m.step())); // the header of that message has not reached me yet
        }
    }

    void onBlock(NodeId from, VsyncMessage.RdmcBlock m) {
        int fromRank = members.indexOf(from);
        if (fromRank < 0 || m.origin() < 0 || m.origin() >= members.size()) {
            refused++;
            return;
        }
        Transfer t = transfers[m.origin()];
        if (t == null || t.index != m.index() || m.bytes() == null) {
            refused++; // a block of a transfer I am not in (a copy that came late): I never asked for it now
            return;
        }
        carry(t, t.session.onBlock(rdmcRank(m.origin(), fromRank), m.step(), m.block(), m.bytes()));
    }

    /** A heartbeat: a receiver whose transfer made no progress for {@link #RETRY_TICKS} beats asks again. */
    void tick() {
        for (Transfer t : transfers) {
            if (t == null || t.origin == self) continue;
            var waiting = t.session.waitingFor();
            if (waiting.isEmpty()) continue;
            int progress = t.session.received();
            if (progress != t.lastProgress) {
                t.lastProgress = progress;
                t.quietTicks = 0;
                continue;
            }
            if (++t.quietTicks < RETRY_TICKS) continue;
            t.quietTicks = 0;
            asksRepeated++;
            carry(t, List.of(waiting.get()));
        }
    }

    /** The current transfer of each sender, with the blocks received of those not complete (for the engine's inspection). */
    String describe() {
        StringBuilder b = new StringBuilder();
        for (Transfer t : transfers) {
            if (t == null) continue;
            b.append(' ').append(members.get(t.origin)).append('#').append(t.index).append(t.complete ? "" : "(" + t.session.received() + " blocks)");
        }
        return b.toString();
    }

    private Schedule schedule(int size) {
        if (size > maxBytes) throw new IllegalArgumentException("a large message of " + size + " bytes exceeds the limit of " + maxBytes);
        return Schedule.of(Schedule.Algorithm.BINOMIAL_PIPELINE, members.size(), Session.blocksFor(size, blockBytes));
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
                    link.send(members.get(shardRank(t.origin, s.to())), new VsyncMessage.RdmcBlock(vid, subgroup, shard, t.origin, t.index, s.step(), s.block(), s.bytes(), RequestIds.BACKGROUND));
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
