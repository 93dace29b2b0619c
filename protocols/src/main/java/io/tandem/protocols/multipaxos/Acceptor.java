package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accept;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accepted;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Heartbeat;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.HeartbeatAck;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.MaxVotedSlot;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.MaxVotedSlotQuery;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Nack;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Prepare;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Promise;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ReplicaProgress;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToAcceptor;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Vote;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import io.tandem.storage.StorageEvent;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The Paxos acceptor (spec §1.3, §1.5): it promises ballots and votes for values, durably, and
 * answers only once what it answers about is on disk.
 *
 * <p>Storage: the promise is a {@link io.tandem.storage.MetaStore} record; votes go to the node's
 * {@link DurableLog} used as a journal, one record per Phase 2a run ({@code ballot, firstSlot,
 * values}), whatever the slots; a restart replays the journal, the later record for a slot winning
 * (an acceptor only ever votes at ballots at least as high as before). A vote implies a promise, so
 * a Phase 2a that raises the promise needs no separate meta write: recovery takes the highest ballot
 * in the journal. Phase 1b is sent once the promise and every journalled vote are durable, Phase 2b
 * once the run's record is durable.
 *
 * <p>Garbage collection: replicas report the slot their newest snapshot covers. Once a majority of
 * the replicas hold snapshots covering slot {@code g}, every slot up to {@code g} is chosen and
 * survives any minority failure, so the acceptor forgets its votes there: it records {@code g} in the
 * meta store and, once that is durable, compacts the journal prefix no remaining vote needs. It
 * reports {@code g} in Phase 1b and Phase 2b so a leader skips those slots.
 *
 * <p>Memory (session 19): the votes of a snapshot period live in the journal only. The heap holds two longs per
 * journal record ({@link JournalIndex}: which slots it holds) and the votes of the last few windows
 * ({@link #recent}: to tell a resent Phase 2a from a new one). Phase 1b, which needs older votes, reads the records
 * that hold them back from the journal; it is rare (a new leader), and the journal was the truth anyway. Holding a
 * vote object per slot for 250,000 slots (the peer benchmark's snapshot period) made every young collection of the
 * replica JVMs copy them: 50-216 ms pauses every 1-4 s (mp18's GC logs).
 */
class Acceptor {
    /** The acceptor's meta namespace on the node; its keys below are stored under it (data directories of earlier builds stay readable). */
    static final String META_NAMESPACE = "multipaxos.acceptor.";
    static final String PROMISE_KEY = "promise";
    static final String GC_KEY = "gc";
    /** Replies waiting for durability; beyond this the oldest is dropped (the leader resends). */
    private static final int MAX_PENDING_REPLIES = 4096;

    /** A vote held in memory, and the journal record that holds it. */
    record StoredVote(Ballot ballot, Value value, long journalIndex) {}

    private record PendingReply(long journalIndex, long promiseToken, NodeId to, MultiPaxosMessage message) {}

    /** A journal record not yet known durable. */
    record JournalRun(long index, Ballot ballot, long firstSlot, List<Value> values) {}

    private final RoleContext rc;
    private final int maxPromiseVotes;
    private final int maxPromiseBytes;

    private Ballot promised = Ballot.ZERO;
    private long promiseToken;
    private long promiseDurableToken;
    private long gcSlot;
    private long gcToken;
    private long maxVotedSlot;
    /** Slots of each journal record not yet compacted. */
    private final JournalIndex journal = new JournalIndex();
    /** The newest vote of recent slots, by slot modulo the length; an entry of another slot is a miss. */
    private final long[] recentSlots;
    private final StoredVote[] recent;
    private final ArrayDeque<JournalRun> undurable = new ArrayDeque<>();
    private final Map<NodeId, Long> replicaSnapshots = new TreeMap<>();
    private final ArrayDeque<PendingReply> replies = new ArrayDeque<>();
    private final VoteHistory history;
    private boolean failed;

    Acceptor(RoleContext rc, boolean recordHistory) {
        this.rc = rc;
        this.history = recordHistory ? new VoteHistory() : null;
        this.maxPromiseVotes = 4 * rc.config.maxBatchSlots();
        this.maxPromiseBytes = 4 * rc.config.maxBatchBytes();
        int capacity = Integer.highestOneBit(Math.max(1024, 4 * rc.config.windowSlots() - 1)) << 1;
        this.recentSlots = new long[capacity];
        this.recent = new StoredVote[capacity];
    }

    // ------------------------------------------------------------------------------------------
    // Recovery
    // ------------------------------------------------------------------------------------------

    void start() {
        rc.engine.meta().get(PROMISE_KEY).ifPresent(b -> promised = decodeBallot(ByteBuffer.wrap(b)));
        rc.engine.meta().get(GC_KEY).ifPresent(b -> gcSlot = ByteBuffer.wrap(b).getLong());
        DurableLog log = rc.engine.log();
        long durable = log.durableIndex();
        for (long i = log.firstIndex(); i <= log.lastIndex(); i++) {
            LogEntry e = log.entry(i);
            JournalRun run = decodeRun(i, e.payload());
            promised = Ballot.max(promised, run.ballot());
            journal.add(i, run.firstSlot(), run.firstSlot() + run.values().size() - 1);
            if (i > durable) undurable.addLast(run);
            else maxVotedSlot = Math.max(maxVotedSlot, run.firstSlot() + run.values().size() - 1);
        }
        maxVotedSlot = Math.max(maxVotedSlot, gcSlot);
    }

    // ------------------------------------------------------------------------------------------
    // Dispatch
    // ------------------------------------------------------------------------------------------

    void onMessage(NodeId from, ToAcceptor m) {
        if (failed) return;
        switch (m) {
            case Prepare p -> onPrepare(from, p);
            case Accept a -> onAccept(from, a);
            case Heartbeat h -> onHeartbeat(from, h);
            case MaxVotedSlotQuery q -> onMaxVotedSlotQuery(from, q);
            case ReplicaProgress p -> onReplicaProgress(from, p);
        }
    }

    void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.LogSynced s -> onLogSynced();
            case StorageEvent.MetaSaved s -> onMetaSaved(s);
            case StorageEvent.StorageFailed s -> {
                failed = true;
                replies.clear();
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Phase 1
    // ------------------------------------------------------------------------------------------

    /**
     * Phase 1a (spec §1.3): promise {@code ballot} unless a higher one was promised, and report every
     * vote from {@code fromSlot} on (in pages), once the promise and those votes are durable.
     */
    private void onPrepare(NodeId from, Prepare p) {
        if (refusesPhase1(p.ballot())) {
            rc.send(from, new Nack(p.ballot(), promised, RequestIds.BACKGROUND));
            return;
        }
        if (p.ballot().greaterThan(promised)) {
            promised = p.ballot();
            persistPromise();
        }
        long fromSlot = Math.max(p.fromSlot(), gcSlot + 1);
        long pageEnd = pageEnd(fromSlot);
        List<Vote> page = new ArrayList<>();
        int bytes = 0;
        long next = fromSlot;
        boolean complete = true;
        for (Map.Entry<Long, StoredVote> e : votesBetween(fromSlot, pageEnd).entrySet()) {
            StoredVote v = e.getValue();
            if (!page.isEmpty() && (page.size() >= maxPromiseVotes || bytes + v.value().weight() > maxPromiseBytes)) {
                complete = false;
                next = e.getKey();
                break;
            }
            page.add(new Vote(e.getKey(), v.ballot(), v.value()));
            bytes += v.value().weight();
        }
        if (complete && pageEnd != Long.MAX_VALUE) {
            complete = false; // more voted slots follow the page's
            next = pageEnd + 1;
        }
        reply(from, new Promise(p.ballot(), gcSlot, page, next, complete), rc.engine.log().lastIndex(), promiseToken);
    }

    /**
     * The last slot of a Phase 1b page from {@code fromSlot}: the page holds at most {@link #maxPromiseVotes} voted
     * slots, and the voted slots are the union of the journal records' runs. {@link Long#MAX_VALUE} when fewer follow.
     */
    private long pageEnd(long fromSlot) {
        List<long[]> runs = new ArrayList<>();
        for (long i = journal.isEmpty() ? 1 : journal.firstIndex(); !journal.isEmpty() && i <= journal.lastIndex(); i++) {
            if (journal.lastSlot(i) >= fromSlot) runs.add(new long[] {Math.max(fromSlot, journal.firstSlot(i)), journal.lastSlot(i)});
        }
        runs.sort((a, b) -> Long.compare(a[0], b[0]));
        long count = 0;
        long covered = fromSlot - 1;
        for (long[] r : runs) {
            long start = Math.max(r[0], covered + 1);
            if (start > r[1]) continue;
            long n = r[1] - start + 1;
            if (count + n > maxPromiseVotes) return start + (maxPromiseVotes - count) - 1;
            count += n;
            covered = r[1];
        }
        return Long.MAX_VALUE;
    }

    /**
     * The votes held for slots {@code from..to} (above the garbage-collection point), read back from the journal: for
     * each slot the vote of the latest record holding it, as a restart's replay would find (an acceptor only votes at
     * ballots at least as high as before).
     */
    private NavigableMap<Long, StoredVote> votesBetween(long from, long to) {
        TreeMap<Long, StoredVote> out = new TreeMap<>();
        long low = Math.max(from, gcSlot + 1);
        if (journal.isEmpty() || low > to) return out;
        DurableLog log = rc.engine.log();
        for (long i = journal.firstIndex(); i <= journal.lastIndex(); i++) {
            if (journal.lastSlot(i) < low || journal.firstSlot(i) > to) continue;
            JournalRun run = decodeRun(i, log.entry(i).payload());
            for (int k = 0; k < run.values().size(); k++) {
                long slot = run.firstSlot() + k;
                if (slot >= low && slot <= to) out.put(slot, new StoredVote(run.ballot(), run.values().get(k), i));
            }
        }
        return out;
    }

    private StoredVote recentVote(long slot) {
        int at = (int) (slot & (recent.length - 1));
        return recentSlots[at] == slot ? recent[at] : null;
    }

    private void persistPromise() {
        ByteBuffer out = ByteBuffer.allocate(12);
        encodeBallot(promised, out);
        promiseToken = rc.nextToken();
        rc.engine.meta().put(PROMISE_KEY, out.array(), promiseToken);
    }

    // ------------------------------------------------------------------------------------------
    // Phase 2
    // ------------------------------------------------------------------------------------------

    /**
     * Phase 2a (spec §1.3): vote for the run's values unless a higher ballot was promised. New votes go
     * to the journal in one record; the Phase 2b leaves once every vote of the run is durable. Slots
     * already garbage-collected are chosen and get no vote (the answer says so through its gcSlot).
     */
    private void onAccept(NodeId from, Accept a) {
        if (refusesPhase2(a.ballot())) {
            // PL-4: the Nack goes to the proposer owning the stale ballot, which is the sender unless
            // a proxy leader relayed the Phase 2a (a proxy cannot act on it; the leader can).
            NodeId owner = rc.topology.leaderOf(a.ballot());
            rc.send(owner != null ? owner : from, new Nack(a.ballot(), promised, a.requestId()));
            return;
        }
        promised = a.ballot(); // a vote implies the promise; the journal record carries it
        Accepted answer = new Accepted(a.ballot(), a.firstSlot(), a.lastSlot(), gcSlot, a.requestId());
        long first = Math.max(a.firstSlot(), gcSlot + 1);
        if (first > a.lastSlot()) {
            reply(from, answer, 0, 0);
            return;
        }
        List<Value> values = a.values().subList((int) (first - a.firstSlot()), a.values().size());
        boolean changed = false;
        long needed = 0;
        for (int k = 0; k < values.size() && !changed; k++) {
            StoredVote known = recentVote(first + k); // a miss only costs a journal record that repeats a vote
            if (known == null || !known.ballot().equals(a.ballot()) || !known.value().equals(values.get(k))) changed = true;
            else needed = Math.max(needed, known.journalIndex());
        }
        if (changed) {
            DurableLog log = rc.engine.log();
            long index = log.lastIndex() + 1;
            List<Value> copy = List.copyOf(values);
            log.append(new LogEntry(index, a.ballot().round(), encodeRun(a.ballot(), first, copy)));
            journal.add(index, first, first + copy.size() - 1);
            for (int k = 0; k < copy.size(); k++) {
                int at = (int) ((first + k) & (recent.length - 1));
                recentSlots[at] = first + k;
                recent[at] = new StoredVote(a.ballot(), copy.get(k), index);
            }
            JournalRun run = new JournalRun(index, a.ballot(), first, copy);
            needed = journaled(run);
        }
        reply(from, answer, needed, 0);
    }

    // ------------------------------------------------------------------------------------------
    // Other requests
    // ------------------------------------------------------------------------------------------

    /** A leader's heartbeat: answer with our promise, so a stale leader learns it is stale and a live one that we are here. */
    private void onHeartbeat(NodeId from, Heartbeat h) {
        rc.send(from, new HeartbeatAck(h.ballot(), promised, h.seq()));
    }

    /** PreRead (spec §2.4.1 step 2): the highest slot this acceptor ever durably voted in. */
    /**
     * PreRead (spec §2.4.1 step 2): the highest slot this acceptor ever voted in durably, in any
     * ballot, never decreasing (LR-3): a vote later superseded still counts, since the slot may be
     * chosen with the newer value at a slot no higher.
     */
    private void onMaxVotedSlotQuery(NodeId from, MaxVotedSlotQuery q) {
        rc.send(from, new MaxVotedSlot(q.round(), maxVotedSlotForReads(), q.requestId()));
    }

    /** What a PreRead is told; a seam so tests can plant an acceptor that breaks LR-3. */
    long maxVotedSlotForReads() {
        return maxVotedSlot;
    }

    /** The votes held now, by slot, read back from the journal (tests). */
    java.util.SortedMap<Long, StoredVote> votesView() {
        return Collections.unmodifiableSortedMap(votesBetween(gcSlot + 1, Long.MAX_VALUE));
    }

    /** A replica's progress: its snapshot point may let us forget votes (see the class comment). */
    private void onReplicaProgress(NodeId from, ReplicaProgress p) {
        if (!rc.topology.replicas().contains(from)) return;
        replicaSnapshots.merge(from, p.snapshotSlot(), Math::max);
        maybeCollectGarbage();
    }

    private void maybeCollectGarbage() {
        if (gcToken != 0) return; // one at a time
        int copies = rc.topology.snapshotCopiesForGc();
        List<Long> points = new ArrayList<>();
        for (NodeId r : rc.topology.replicas()) points.add(replicaSnapshots.getOrDefault(r, 0L));
        points.sort(Collections.reverseOrder());
        long covered = points.get(copies - 1);
        if (covered <= gcSlot) return;
        gcSlot = covered;
        maxVotedSlot = Math.max(maxVotedSlot, covered);
        gcToken = rc.nextToken();
        rc.engine.meta().put(GC_KEY, ByteBuffer.allocate(8).putLong(covered).array(), gcToken);
    }

    /** The new garbage-collection point is durable: the journal prefix no remaining vote needs can go. */
    private void compactJournal() {
        DurableLog log = rc.engine.log();
        // The prefix of records whose every slot is garbage-collected: nothing in it is needed again. (A record
        // whose votes were all superseded by later ones waits until the collection passes its slots, as the
        // collection always does; keeping a record longer is always safe.)
        long upTo = journal.isEmpty() ? 0 : journal.firstIndex() - 1;
        while (!journal.isEmpty() && upTo < journal.lastIndex() && journal.lastSlot(upTo + 1) <= gcSlot) upTo++;
        upTo = Math.min(upTo, log.durableIndex());
        if (upTo >= log.firstIndex()) log.compactPrefix(upTo);
        journal.dropThrough(upTo);
    }

    // ------------------------------------------------------------------------------------------
    // Durability
    // ------------------------------------------------------------------------------------------

    private void reply(NodeId to, MultiPaxosMessage message, long journalIndex, long promiseToken) {
        if (replies.isEmpty() && ready(journalIndex, promiseToken)) {
            rc.send(to, message);
            return;
        }
        if (replies.size() >= MAX_PENDING_REPLIES) replies.pollFirst();
        replies.addLast(new PendingReply(journalIndex, promiseToken, to, message));
    }

    /** Spec §1.3: Phase 1a of a ballot below the promise is refused. Overridable so tests can plant an acceptor that promises anything. */
    boolean refusesPhase1(Ballot ballot) {
        return ballot.lessThan(promised);
    }

    /** Spec §1.3: Phase 2a of a ballot below the promise is refused. Overridable so tests can plant an acceptor that votes in any ballot. */
    boolean refusesPhase2(Ballot ballot) {
        return ballot.lessThan(promised);
    }

    private boolean ready(long journalIndex, long token) {
        return journalIndex <= rc.engine.log().durableIndex() && promiseDurable(token);
    }

    /**
     * Spec §2.3: a Phase 1b leaves only once the promise it carries survives a crash, or a restarted
     * acceptor could accept a lower ballot's Phase 2a after promising a higher one. Overridable so
     * tests can plant an acceptor that promises before the promise is durable.
     */
    boolean promiseDurable(long token) {
        return token <= promiseDurableToken;
    }

    private void flushReplies() {
        while (!replies.isEmpty() && ready(replies.peekFirst().journalIndex(), replies.peekFirst().promiseToken())) {
            PendingReply r = replies.pollFirst();
            rc.send(r.to(), r.message());
        }
    }

    private void onLogSynced() {
        long durable = rc.engine.log().durableIndex();
        while (!undurable.isEmpty() && undurable.peekFirst().index() <= durable) votesDurable(undurable.pollFirst());
        flushReplies();
    }

    /**
     * A run of votes was appended to the journal: its answer waits until the journal synced it (spec
     * §2.3: a vote counts only once it survives a crash), so this returns the journal index to wait for.
     * Overridable so tests can plant an acceptor that answers before its votes are durable.
     */
    long journaled(JournalRun run) {
        undurable.addLast(run);
        return run.index();
    }

    void votesDurable(JournalRun run) {
        for (int k = 0; k < run.values().size(); k++) {
            long slot = run.firstSlot() + k;
            maxVotedSlot = Math.max(maxVotedSlot, slot);
            if (history != null) history.record(slot, run.ballot(), ValueCodec.digest(run.values().get(k)));
        }
    }

    private void onMetaSaved(StorageEvent.MetaSaved s) {
        switch (s.key()) {
            case PROMISE_KEY -> {
                promiseDurableToken = Math.max(promiseDurableToken, s.token());
                flushReplies();
            }
            case GC_KEY -> {
                if (s.token() != gcToken) return;
                gcToken = 0;
                compactJournal();
                maybeCollectGarbage();
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Journal encoding
    // ------------------------------------------------------------------------------------------

    static byte[] encodeRun(Ballot ballot, long firstSlot, List<Value> values) {
        int size = 12 + 8 + 4;
        for (Value v : values) size += ValueCodec.encodedSize(v);
        ByteBuffer out = ByteBuffer.allocate(size);
        encodeBallot(ballot, out);
        out.putLong(firstSlot).putInt(values.size());
        for (Value v : values) ValueCodec.encode(v, out);
        return out.array();
    }

    private static JournalRun decodeRun(long index, byte[] payload) {
        ByteBuffer in = ByteBuffer.wrap(payload);
        Ballot ballot = decodeBallot(in);
        long firstSlot = in.getLong();
        int n = in.getInt();
        if (n < 0 || n > payload.length) throw new IllegalStateException("journal record " + index + " claims " + n + " values");
        List<Value> values = new ArrayList<>(n);
        for (int k = 0; k < n; k++) values.add(ValueCodec.decode(in));
        return new JournalRun(index, ballot, firstSlot, values);
    }

    static void encodeBallot(Ballot b, ByteBuffer out) {
        out.putLong(b.round()).putInt(b.proposer());
    }

    static Ballot decodeBallot(ByteBuffer in) {
        return new Ballot(in.getLong(), in.getInt());
    }

    // ------------------------------------------------------------------------------------------
    // Read-only views (tests and simulator invariants)
    // ------------------------------------------------------------------------------------------

    Ballot promised() {
        return promised;
    }

    long gcSlot() {
        return gcSlot;
    }

    long maxVotedSlot() {
        return maxVotedSlot;
    }

    /** The votes held, by slot (durable or not: see {@link #isDurable}), read back from the journal (tests, invariants). */
    NavigableMap<Long, StoredVote> votes() {
        return Collections.unmodifiableNavigableMap(votesBetween(gcSlot + 1, Long.MAX_VALUE));
    }

    boolean isDurable(StoredVote v) {
        return v.journalIndex() <= rc.engine.log().durableIndex();
    }

    /** Null unless the protocol's invariants asked for it. */
    VoteHistory history() {
        return history;
    }

    String describe() {
        return "acceptor promised=" + promised + " gc=" + gcSlot + " maxVoted=" + maxVotedSlot + " journalRecords=" + journal.size()
                + " journal=[" + rc.engine.log().firstIndex() + ".." + rc.engine.log().lastIndex() + "] replies=" + replies.size();
    }
}
