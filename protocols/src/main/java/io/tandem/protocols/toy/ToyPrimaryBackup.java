package io.tandem.protocols.toy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.RequestIds;
import io.tandem.engine.TimerKey;
import io.tandem.sim.Inspectable;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import io.tandem.storage.StorageEvent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A small but real primary-backup engine, the simulator's first customer. The primary of view
 * {@code v} is member {@code v mod n}; view 0 starts with the first member as primary. The primary
 * appends each command to its log, replicates it to every backup and commits once a majority
 * (its own durable write included) has it durably; backups acknowledge only durable entries.
 *
 * <p>View change: a backup that hears nothing from its primary moves to the next view that it
 * leads itself and asks for votes; a node grants its vote if the candidate's log is at least as
 * up to date as its own (last term, then length), which is Raft's rule and makes the new primary
 * hold every committed entry. Since exactly one node can lead a view, no vote needs remembering;
 * the view number itself is persisted before a node answers in it. A new primary appends a no-op
 * and, like Raft, only commits entries of its own view by counting, earlier ones with them. Reads
 * use a read index confirmed by a majority's echo of a probe.
 */
public class ToyPrimaryBackup implements Engine, Inspectable {
    enum Role { BACKUP, CANDIDATE, PRIMARY }

    record Heartbeat() implements TimerKey {}

    record ViewTimeout() implements TimerKey {}

    private static final String VIEW_KEY = "view";

    private record PendingRead(long requestId, long probe, long readIndex) {}

    private record PendingVote(NodeId candidate, long view, boolean granted) {}

    private final NodeId self;
    private final List<NodeId> members;
    private final int majority;
    private final ToyConfig config;
    private EngineContext ctx;

    private long view;
    private long durableView = -1;
    private Role role = Role.BACKUP;
    private boolean primaryReady;
    private NodeId knownPrimary;
    private long commitIndex;
    private long deliveredIndex;

    // backup state
    private long ackableIndex;
    private long reportedMatch = -1;
    private boolean replyOwed;
    private long lastProbeSeen;
    private PendingVote pendingVote;

    // candidate state
    private final TreeSet<NodeId> votes = new TreeSet<>();
    private boolean votesRequested;

    // primary state
    private final TreeMap<NodeId, Long> nextIndex = new TreeMap<>();
    private final TreeMap<NodeId, Long> matchIndex = new TreeMap<>();
    private final TreeMap<NodeId, Long> probeAcked = new TreeMap<>();
    private final TreeSet<NodeId> heardSinceCheck = new TreeSet<>();
    private long probeSeq;
    private final List<PendingRead> pendingReads = new ArrayList<>();
    private final List<Long> readsAwaitingOwnCommit = new ArrayList<>();
    private final TreeMap<Long, Long> pendingCommands = new TreeMap<>(); // request id -> log index

    public ToyPrimaryBackup(NodeId self, List<NodeId> members, ToyConfig config) {
        if (!members.contains(self)) throw new IllegalArgumentException(self + " is not among the members " + members);
        this.self = self;
        this.members = List.copyOf(members);
        this.majority = members.size() / 2 + 1;
        this.config = config;
    }

    // ---- accessors for invariants and status ----

    long view() {
        return view;
    }

    Role role() {
        return role;
    }

    long commitIndex() {
        return commitIndex;
    }

    DurableLog log() {
        return ctx.log();
    }

    /** The primary of the view is the leader, the view is the epoch; the primary reports each backup's distance from its log's end. */
    @Override
    public EngineStatus status() {
        EngineStatus.Role neutral = switch (role) {
            case PRIMARY -> EngineStatus.Role.LEADER;
            case CANDIDATE -> EngineStatus.Role.CANDIDATE;
            case BACKUP -> EngineStatus.Role.FOLLOWER;
        };
        Map<NodeId, Long> lag = new TreeMap<>();
        if (role == Role.PRIMARY) {
            long last = ctx.log().lastIndex();
            matchIndex.forEach((backup, match) -> lag.put(backup, Math.max(0, last - match)));
        }
        return new EngineStatus(neutral, role == Role.PRIMARY ? self : knownPrimary, view, members, List.of(), commitIndex, deliveredIndex, lag);
    }

    @Override
    public String inspect() {
        return "view=" + view + (durableView < view ? "(unsaved)" : "") + " " + role + (role == Role.PRIMARY && !primaryReady ? "(not ready)" : "")
                + " primary=" + knownPrimary + " commit=" + commitIndex + " delivered=" + deliveredIndex + " last=" + ctx.log().lastIndex()
                + " durable=" + ctx.log().durableIndex() + (role == Role.PRIMARY ? " match=" + matchIndex : "");
    }

    private NodeId primaryOf(long v) {
        return members.get((int) (v % members.size()));
    }

    // ---- Engine ----

    @Override
    public void start(EngineContext context) {
        this.ctx = context;
        deliveredIndex = ctx.snapshots().latest().map(s -> s.lastIncludedIndex()).orElse(0L);
        commitIndex = deliveredIndex;
        var saved = ctx.meta().get(VIEW_KEY);
        if (saved.isPresent()) {
            // A restarted node never resumes as primary of its old view: it may have lost unsynced
            // entries that a majority already holds, and would then reuse their indexes in the same view.
            view = ByteBuffer.wrap(saved.get()).getLong();
            durableView = view;
            role = Role.BACKUP;
        } else {
            view = 0;
            persistView(0);
            if (primaryOf(0).equals(self)) becomePrimary();
        }
        armViewTimeout();
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        switch ((ToyMessage) message) {
            case ToyMessage.Append m -> onAppend(from, m);
            case ToyMessage.AppendReply m -> onAppendReply(from, m);
            case ToyMessage.RequestVote m -> onRequestVote(from, m);
            case ToyMessage.Vote m -> onVote(from, m);
        }
    }

    @Override
    public void onTimer(TimerKey key) {
        switch (key) {
            case Heartbeat h -> onHeartbeat();
            case ViewTimeout t -> onViewTimeout();
            default -> throw new IllegalArgumentException("unknown timer " + key);
        }
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        if (role != Role.PRIMARY) {
            ctx.reject(request.requestId(), Rejection.Redirect.to(knownPrimary));
            return;
        }
        if (!primaryReady) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("primary of view " + view + " is saving its view"));
            return;
        }
        if (request.kind() == ClientRequest.Kind.READ) {
            onRead(request.requestId());
            return;
        }
        long index = ctx.log().lastIndex() + 1;
        ctx.log().append(new LogEntry(index, view, encode(new Committed(index, self, request.requestId(), request.session(), request.payload()))));
        pendingCommands.put(request.requestId(), index);
        advanceCommit(); // commits nothing new while replicationQuorum() needs a durable copy (a majority always does)
        for (NodeId b : backups()) {
            if (nextIndex.get(b) == index) replicate(b, index, request.requestId());
        }
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.LogSynced synced -> onLogSynced();
            case StorageEvent.MetaSaved saved -> onViewSaved(saved.token());
            case StorageEvent.StorageFailed failed -> throw new IllegalStateException("storage failed: " + failed);
            default -> {}
        }
    }

    // ---- view change ----

    private void persistView(long v) {
        ctx.meta().put(VIEW_KEY, ByteBuffer.allocate(8).putLong(v).array(), v);
    }

    /** Moves to a higher view as a backup (a higher view exists, led by someone else or not yet). */
    private void adoptView(long v) {
        if (v <= view) return;
        stepDown();
        view = v;
        role = Role.BACKUP;
        knownPrimary = null;
        ackableIndex = 0;
        reportedMatch = -1;
        lastProbeSeen = 0; // probes are numbered per primary
        replyOwed = false;
        pendingVote = null;
        persistView(v);
    }

    private void stepDown() {
        if (role == Role.PRIMARY) {
            for (Long requestId : pendingCommands.keySet()) ctx.reject(requestId, Rejection.Redirect.to(null));
            for (PendingRead r : pendingReads) ctx.reject(r.requestId(), Rejection.Redirect.to(null));
            for (Long requestId : readsAwaitingOwnCommit) ctx.reject(requestId, Rejection.Redirect.to(null));
            ctx.cancel(new Heartbeat());
        }
        pendingCommands.clear();
        pendingReads.clear();
        readsAwaitingOwnCommit.clear();
        role = Role.BACKUP;
        primaryReady = false;
    }

    private void onViewTimeout() {
        if (role == Role.PRIMARY) {
            checkQuorum();
            return;
        }
        // Start the next view this node leads.
        long next = view + 1;
        while (!primaryOf(next).equals(self)) next++;
        adoptView(next);
        role = Role.CANDIDATE;
        votes.clear();
        votesRequested = false;
        armViewTimeout();
    }

    private void onViewSaved(long savedView) {
        durableView = Math.max(durableView, savedView);
        if (durableView < view) return;
        if (role == Role.CANDIDATE && !votesRequested) requestVotes();
        if (role == Role.PRIMARY && !primaryReady) beginPrimaryWork();
        if (pendingVote != null && pendingVote.view() == view) {
            ctx.send(pendingVote.candidate(), new ToyMessage.Vote(view, pendingVote.granted(), RequestIds.BACKGROUND));
            pendingVote = null;
        }
        if (role == Role.BACKUP && replyOwed && knownPrimary != null) sendAppendReply(knownPrimary, true, RequestIds.BACKGROUND);
    }

    private void requestVotes() {
        votesRequested = true;
        votes.add(self);
        if (votes.size() >= majority) {
            becomePrimary();
            return;
        }
        long lastIndex = ctx.log().lastIndex();
        long lastTerm = termAt(lastIndex);
        for (NodeId b : backups()) ctx.send(b, new ToyMessage.RequestVote(view, lastTerm, lastIndex, RequestIds.BACKGROUND));
    }

    private void onRequestVote(NodeId from, ToyMessage.RequestVote m) {
        if (m.view() < view) {
            ctx.send(from, new ToyMessage.Vote(view, false, RequestIds.BACKGROUND));
            return;
        }
        adoptView(m.view());
        if (!primaryOf(view).equals(from) || role != Role.BACKUP) return;
        long myLastIndex = ctx.log().lastIndex();
        long myLastTerm = termAt(myLastIndex);
        boolean upToDate = m.lastTerm() > myLastTerm || m.lastTerm() == myLastTerm && m.lastIndex() >= myLastIndex;
        if (upToDate) armViewTimeout(); // a viable primary is being elected: give it time
        if (durableView >= view) ctx.send(from, new ToyMessage.Vote(view, upToDate, RequestIds.BACKGROUND));
        else pendingVote = new PendingVote(from, view, upToDate);
    }

    private void onVote(NodeId from, ToyMessage.Vote m) {
        if (m.view() > view) {
            adoptView(m.view());
            return;
        }
        if (role != Role.CANDIDATE || m.view() != view || !m.granted()) return;
        votes.add(from);
        if (votes.size() >= majority) becomePrimary();
    }

    private void becomePrimary() {
        role = Role.PRIMARY;
        knownPrimary = self;
        primaryReady = false;
        if (durableView >= view) beginPrimaryWork();
    }

    /** The view is durable: take over as primary with a no-op of our own view (Raft §5.4.2, §8). */
    private void beginPrimaryWork() {
        primaryReady = true;
        long last = ctx.log().lastIndex();
        nextIndex.clear();
        matchIndex.clear();
        probeAcked.clear();
        heardSinceCheck.clear();
        for (NodeId b : backups()) {
            nextIndex.put(b, last + 1);
            matchIndex.put(b, 0L);
            probeAcked.put(b, 0L);
        }
        long index = last + 1;
        ctx.log().append(new LogEntry(index, view, encode(Committed.noop(index))));
        advanceCommit(); // as for a command: nothing new while a durable copy is needed
        onHeartbeat();
        armViewTimeout();
    }

    private void checkQuorum() {
        if (heardSinceCheck.size() + 1 < majority) {
            // Cut off from a majority: stop taking requests so clients go elsewhere, then campaign.
            stepDown();
            knownPrimary = null;
        }
        heardSinceCheck.clear();
        armViewTimeout();
    }

    private void armViewTimeout() {
        long t = config.viewTimeoutNanos();
        ctx.schedule(role == Role.PRIMARY ? t : t + ctx.random().nextLong(t), new ViewTimeout());
    }

    // ---- replication, primary side ----

    private List<NodeId> backups() {
        List<NodeId> out = new ArrayList<>(members.size() - 1);
        for (NodeId m : members) if (!m.equals(self)) out.add(m);
        return out;
    }

    private void onHeartbeat() {
        if (role != Role.PRIMARY || !primaryReady) return;
        for (NodeId b : backups()) replicate(b, matchIndex.get(b) + 1, RequestIds.BACKGROUND);
        ctx.schedule(config.heartbeatNanos(), new Heartbeat());
    }

    /** Sends {@code b} the entries from {@code from} on (at most a batch), with the current probe. */
    private void replicate(NodeId b, long from, long requestId) {
        long last = ctx.log().lastIndex();
        long to = Math.min(last, from + config.maxEntriesPerAppend() - 1);
        List<LogEntry> entries = new ArrayList<>();
        for (long i = from; i <= to; i++) entries.add(ctx.log().entry(i));
        nextIndex.put(b, Math.max(nextIndex.get(b), to + 1));
        ctx.send(b, new ToyMessage.Append(view, from - 1, termAt(from - 1), entries, commitIndex, probeSeq, requestId));
    }

    private void onAppendReply(NodeId from, ToyMessage.AppendReply m) {
        if (m.view() > view) {
            adoptView(m.view());
            return;
        }
        if (m.view() < view || role != Role.PRIMARY || !primaryReady) return;
        heardSinceCheck.add(from);
        probeAcked.merge(from, m.probe(), Math::max);
        if (m.success()) {
            matchIndex.merge(from, m.matchIndex(), Math::max);
            advanceCommit();
        } else {
            long resume = Math.max(matchIndex.get(from) + 1, Math.min(m.nextIndexHint(), ctx.log().lastIndex() + 1));
            nextIndex.put(from, resume);
            replicate(from, resume, m.requestId());
        }
        serveConfirmedReads();
    }

    private void onLogSynced() {
        if (role == Role.PRIMARY && primaryReady) advanceCommit();
        else if (role == Role.BACKUP && knownPrimary != null && durableView >= view) {
            long match = Math.min(ackableIndex, ctx.log().durableIndex());
            if (match > reportedMatch) sendAppendReply(knownPrimary, true, RequestIds.BACKGROUND);
        }
    }

    /**
     * Copies (the primary's own included) that commit an entry or confirm a read index: a majority, so
     * every commit and every confirmation meets every later view's majority of votes. Overridable so
     * tests can plant a primary that needs fewer.
     */
    int replicationQuorum() {
        return majority;
    }

    /** Commits the highest index of this view that a majority holds durably (own disk included). */
    private void advanceCommit() {
        DurableLog log = ctx.log();
        for (long n = log.lastIndex(); n > commitIndex; n--) {
            if (termAt(n) != view) break;
            int holders = log.durableIndex() >= n ? 1 : 0;
            for (long match : matchIndex.values()) if (match >= n) holders++;
            if (holders >= replicationQuorum()) {
                commitIndex = n;
                deliverCommitted();
                break;
            }
        }
    }

    // ---- reads ----

    private void onRead(long requestId) {
        if (termAt(commitIndex) != view) {
            readsAwaitingOwnCommit.add(requestId); // the read index is not known until our no-op commits
            return;
        }
        registerRead(requestId);
    }

    private void registerRead(long requestId) {
        probeSeq++;
        pendingReads.add(new PendingRead(requestId, probeSeq, commitIndex));
        for (NodeId b : backups()) replicate(b, matchIndex.get(b) + 1, requestId);
        serveConfirmedReads();
    }

    private void serveConfirmedReads() {
        if (!readsAwaitingOwnCommit.isEmpty() && termAt(commitIndex) == view) {
            List<Long> waiting = new ArrayList<>(readsAwaitingOwnCommit);
            readsAwaitingOwnCommit.clear();
            for (long id : waiting) registerRead(id);
        }
        for (Iterator<PendingRead> it = pendingReads.iterator(); it.hasNext(); ) {
            PendingRead r = it.next();
            int confirmed = 1;
            for (long acked : probeAcked.values()) if (acked >= r.probe()) confirmed++;
            if (confirmed >= replicationQuorum()) {
                it.remove();
                ctx.serveRead(r.requestId(), r.readIndex());
            }
        }
    }

    // ---- replication, backup side ----

    private void onAppend(NodeId from, ToyMessage.Append m) {
        if (m.view() < view) {
            ctx.send(from, new ToyMessage.AppendReply(view, false, 0, 0, m.probe(), m.requestId()));
            return;
        }
        adoptView(m.view());
        if (role == Role.PRIMARY) return; // cannot happen: one node leads a view
        role = Role.BACKUP;
        knownPrimary = from;
        lastProbeSeen = Math.max(lastProbeSeen, m.probe());
        armViewTimeout();
        DurableLog log = ctx.log();
        if (m.prevIndex() > log.lastIndex()) {
            sendReply(from, false, log.lastIndex() + 1, m.requestId());
            return;
        }
        if (m.prevIndex() >= log.firstIndex() && termAt(m.prevIndex()) != m.prevTerm()) {
            sendReply(from, false, m.prevIndex(), m.requestId());
            return;
        }
        for (LogEntry e : m.entries()) {
            if (e.index() <= log.lastIndex()) {
                if (termAt(e.index()) == e.term()) continue; // already have it
                log.truncateSuffix(e.index()); // a conflicting suffix from an older view
            }
            log.append(e);
        }
        ackableIndex = Math.max(ackableIndex, m.prevIndex() + m.entries().size());
        long newCommit = Math.min(m.commitIndex(), ackableIndex);
        if (newCommit > commitIndex) {
            commitIndex = newCommit;
            deliverCommitted();
        }
        sendAppendReply(from, true, m.requestId());
    }

    private void sendAppendReply(NodeId to, boolean success, long requestId) {
        if (durableView < view) {
            replyOwed = true; // never answer in a view that a crash could make us forget
            return;
        }
        replyOwed = false;
        long match = Math.min(ackableIndex, ctx.log().durableIndex());
        reportedMatch = Math.max(reportedMatch, match);
        ctx.send(to, new ToyMessage.AppendReply(view, success, match, match + 1, lastProbeSeen, requestId));
    }

    private void sendReply(NodeId to, boolean success, long nextIndexHint, long requestId) {
        if (durableView < view) {
            replyOwed = true;
            return;
        }
        ctx.send(to, new ToyMessage.AppendReply(view, success, 0, nextIndexHint, lastProbeSeen, requestId));
    }

    // ---- execution ----

    private void deliverCommitted() {
        while (deliveredIndex < commitIndex) {
            long index = deliveredIndex + 1;
            Committed c = decode(index, ctx.log().entry(index).payload());
            ctx.deliver(c);
            deliveredIndex = index;
            if (self.equals(c.origin())) pendingCommands.remove(c.requestId());
        }
    }

    private long termAt(long index) {
        DurableLog log = ctx.log();
        if (index == 0 || index < log.firstIndex() || index > log.lastIndex()) return 0;
        return log.entry(index).term();
    }

    // ---- entry encoding: the engine's own format inside LogEntry.payload ----

    static byte[] encode(Committed c) {
        if (c.isNoop()) return new byte[] {0};
        byte[] origin = c.origin().value().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + 1 + origin.length + 8 + 8 + 8 + 8 + 4 + c.command().length)
                .put((byte) 1).put((byte) origin.length).put(origin)
                .putLong(c.requestId()).putLong(c.session().clientId()).putLong(c.session().sequence()).putLong(c.session().lowWatermark())
                .putInt(c.command().length).put(c.command())
                .array();
    }

    static Committed decode(long index, byte[] payload) {
        ByteBuffer in = ByteBuffer.wrap(payload);
        if (in.get() == 0) return Committed.noop(index);
        byte[] origin = new byte[in.get()];
        in.get(origin);
        long requestId = in.getLong();
        ClientRequest.Session session = new ClientRequest.Session(in.getLong(), in.getLong(), in.getLong());
        byte[] command = new byte[in.getInt()];
        in.get(command);
        return new Committed(index, NodeId.of(new String(origin, StandardCharsets.UTF_8)), requestId, session, command);
    }
}
