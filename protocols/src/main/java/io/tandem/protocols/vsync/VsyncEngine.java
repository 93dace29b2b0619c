package io.tandem.protocols.vsync;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.GroupView;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.PushCompletion;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.sim.Inspectable;
import io.tandem.sst.Predicates;
import io.tandem.sst.Sst;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One member of a virtually synchronous group (Derecho, derecho.md §3–§5) as a deterministic engine
 * over an SST in the engine's memory region, driven by the poll hook.
 *
 * <p>Data path: a client's command (or read) goes into a slot of this member's SMC ring in its own
 * row, guarded by the {@code index} counter; members copy new slots out of the sender's row as they
 * poll, count them in {@code received}, and deliver in round-robin order once a position is held by
 * every member (the minimum of the {@code seq} column). Idle senders emit null messages.
 *
 * <p>Membership: a member whose heartbeat word stops moving, or whose push fails, is suspected;
 * suspicion wedges the member (no more sending, receiving or delivering), spreads through the
 * {@code suspected} column, and the leader (lowest unsuspected rank, once every unsuspected row
 * agrees) proposes the change in its row. Members that see the proposal copy it and ack; when every
 * unsuspected member acked, the leader publishes the ragged trim (per sender, the minimum of the
 * final {@code received} counters), everyone echoes it, and once every unsuspected member echoed,
 * each delivers the trimmed messages and installs the next view. Joiners get the application state
 * from the new view's first member. A member that suspects half of the view or more shuts down.
 */
public class VsyncEngine implements Engine, Inspectable {
    /** Where this process stands. */
    public enum Phase { MEMBER, JOINING, SHUTDOWN }

    record Heartbeat() implements TimerKey {}

    record JoinRetry() implements TimerKey {}

    record Rejoin() implements TimerKey {}

    private static final String REGION = "vsync-sst";
    private static final String META_KEY = "vsync.started";
    static final long NULL = 1;
    static final long COMMAND = 2;
    static final long READ = 3;

    /** A message held by this member in the current view (copied out of the sender's slot). */
    record Held(long kind, long index, long requestId, ClientRequest.Session session, byte[] payload) {}

    /** A request waiting for a window slot. */
    record Outgoing(long kind, long requestId, ClientRequest.Session session, byte[] payload) {}

    private final NodeId self;
    private final List<NodeId> configured;
    private final VsyncConfig config;
    private final VsyncRow row;
    /** The slots of the current send pass, published together at its end (derecho.md §3.2). */
    private final RingBatch batch;
    private EngineContext ctx;
    private Sst sst;
    private long nonce;

    private Phase phase = Phase.JOINING;
    private String shutdownReason = "";

    // ---- the current view ----
    private long vid;
    private List<NodeId> members = List.of();
    private int rank;
    private long suspectedMask;
    private boolean wedged;
    private boolean trimEchoed;
    private long[] received = new long[0];
    private ArrayDeque<Held>[] held;
    private long[] heldBase = new long[0];
    private long sent;
    private long delivered;
    private long[] lastHeartbeat = new long[0];
    private long[] silentBeats = new long[0];
    private long[] nonces = new long[0];
    private boolean dirty;
    private boolean everActive;
    private long lastInactivePush;
    private String leaderStep;
    private long trimsAdopted;
    private Predicates.Handle receiveHandle;
    private Predicates.Handle sendHandle;
    private Predicates.Handle deliverHandle;

    private final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
    private final LinkedHashSet<NodeId> pendingJoins = new LinkedHashSet<>();
    private long lastProbe;
    private long appliedIndex;

    // ---- joining ----
    private long incomingVid;
    private List<NodeId> incomingMembers = List.of();
    private long incomingOffset;
    private SnapshotMeta incomingSnapshot;
    /** The token of the state write whose last chunk is with the store (negative: never a transfer token), or 0. */
    private long installInFlight;
    private long installTokens;
    private long stateCopiesIgnored;

    // ---- state transfer to joiners (as the first member of a new view) ----
    private final LinkedHashSet<NodeId> joinersWaiting = new LinkedHashSet<>();
    private long transferToken;
    private SnapshotMeta transferSnapshot;
    private boolean transferReading;
    private long transferStartedAt;

    // ---- records for the simulator's invariants ----
    private final TreeMap<Long, long[]> completedViews = new TreeMap<>(); // vid -> {count, hash}
    private long[] prefixHashes = new long[64];
    private int deliveredInView;
    private String violation;
    private long deliveredNonNull;

    public VsyncEngine(NodeId self, List<NodeId> configured, VsyncConfig config) {
        if (!configured.contains(self)) throw new IllegalArgumentException(self + " is not among the members " + configured);
        if (configured.size() > config.maxMembers()) {
            throw new IllegalArgumentException(configured.size() + " members but maxMembers is " + config.maxMembers());
        }
        this.self = self;
        this.configured = List.copyOf(configured);
        this.config = config;
        this.row = new VsyncRow(config);
        this.batch = new RingBatch(row);
    }

    // ---- Engine ----

    @Override
    public void start(EngineContext context) {
        ctx = context;
        sst = Sst.register(ctx.regions(), REGION, row.layout);
        nonce = ctx.random().nextLong() | 1;
        appliedIndex = ctx.snapshots().latest().map(SnapshotMeta::lastIncludedIndex).orElse(0L);
        boolean restarted = ctx.meta().get(META_KEY).isPresent() || appliedIndex > 0;
        ctx.meta().put(META_KEY, new byte[] {1}, 0);
        if (restarted) {
            // A restarted process lost its volatile state: it is a new process and joins (derecho.md §5.4).
            startJoining();
        } else {
            install(1, configured, 0L);
        }
        ctx.schedule(config.heartbeatNanos(), new Heartbeat());
        ctx.requestPolling(true);
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        switch ((VsyncMessage) message) {
            case VsyncMessage.JoinRequest m -> onJoinRequest(from, m);
            case VsyncMessage.StateChunk m -> onStateChunk(from, m);
            case VsyncMessage.Moved m -> onMoved(from, m);
            case VsyncMessage.ViewProbe m -> onViewProbe(from, m);
        }
    }

    @Override
    public void onTimer(TimerKey key) {
        switch (key) {
            case Heartbeat h -> onHeartbeat();
            case JoinRetry j -> onJoinRetry();
            case Rejoin r -> onRejoin();
            default -> throw new IllegalArgumentException("unknown timer " + key);
        }
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        if (phase != Phase.MEMBER) {
            ctx.reject(request.requestId(), new Rejection.Unavailable(self + " is " + (phase == Phase.JOINING ? "joining the group" : "shut down: " + shutdownReason)));
            return;
        }
        if (request.payload().length > config.maxPayloadBytes()) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("payload of " + request.payload().length + " bytes exceeds the " + config.maxPayloadBytes() + "-byte slot"));
            return;
        }
        if (queue.size() >= config.maxQueuedSends()) {
            ctx.reject(request.requestId(), new Rejection.Overloaded(queue.size() + " messages wait for the send window on " + self));
            return;
        }
        long kind = request.kind() == ClientRequest.Kind.READ ? READ : COMMAND;
        queue.add(new Outgoing(kind, request.requestId(), request.session(), request.payload()));
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.SnapshotTaken t when t.token() == transferToken -> onTransferSnapshotTaken(t.snapshot());
            case StorageEvent.SnapshotChunkRead r when r.token() == transferToken -> onTransferChunkRead(r);
            case StorageEvent.SnapshotFailed f when f.token() == transferToken -> transferReading = false; // the joiner's retry restarts it
            case StorageEvent.SnapshotInstalled i when phase == Phase.JOINING && i.token() == installInFlight && i.snapshot().equals(incomingSnapshot) -> onStateInstalled(i.snapshot());
            case StorageEvent.SnapshotFailed f when phase == Phase.JOINING -> {
                if (f.token() == installInFlight) installInFlight = 0;
                incomingOffset = 0;
            }
            default -> { }
        }
    }

    /**
     * The poll hook (derecho.md §8.8): one pass of the SST predicates, then one flush of what they
     * changed in my row. The order of a pass is derecho.md §8.9's: failures, receive, send, deliver,
     * membership.
     */
    @Override
    public int doWork() {
        if (phase != Phase.MEMBER) return 0;
        int work = sst.predicates().evaluate();
        flush();
        return work;
    }

    /**
     * The predicates of a view: all recurrent, with the check-and-act in the trigger (derecho.md
     * §2.6). The data-path ones hold only while the view is active and are removed by {@link #wedge}.
     */
    private void registerPredicates() {
        var p = sst.predicates();
        p.removeAll();
        p.insert("push-completions", () -> true, () -> ctx.regions().pollCompletions(this::onPushCompletion), Predicates.Kind.RECURRENT);
        p.insert("suspicions", () -> phase == Phase.MEMBER, this::detectSuspicions, Predicates.Kind.RECURRENT);
        p.insert("leader-proposes", () -> phase == Phase.MEMBER && !wedged && leaderProposes(), this::wedge, Predicates.Kind.ONE_TIME);
        receiveHandle = p.insert("receive", this::dataPathOpen, this::receive, Predicates.Kind.RECURRENT);
        sendHandle = p.insert("send", this::dataPathOpen, this::send, Predicates.Kind.RECURRENT);
        deliverHandle = p.insert("deliver", this::dataPathOpen, this::deliverStable, Predicates.Kind.RECURRENT);
        p.insert("view-change", () -> phase == Phase.MEMBER && wedged, this::changeView, Predicates.Kind.RECURRENT);
    }

    private boolean dataPathOpen() {
        return phase == Phase.MEMBER && !wedged && viewActive();
    }

    @Override
    public EngineStatus status() {
        EngineStatus.Role role = phase != Phase.MEMBER ? EngineStatus.Role.NOT_MEMBER : rank == leaderRank() ? EngineStatus.Role.LEADER : EngineStatus.Role.FOLLOWER;
        NodeId leader = phase == Phase.MEMBER ? members.get(leaderRank()) : null;
        return new EngineStatus(role, leader, vid, members, List.of(), appliedIndex, appliedIndex, Map.of());
    }

    @Override
    public String inspect() {
        return phase + (phase == Phase.SHUTDOWN ? "(" + shutdownReason + ")" : "") + " view " + vid + " " + members + " rank=" + rank
                + " suspected=" + Long.toBinaryString(suspectedMask) + (wedged ? " WEDGED" : "") + " sent=" + sent + " received=" + Arrays.toString(received)
                + " delivered=" + delivered + " applied=" + appliedIndex + " queue=" + queue.size() + " proposal=" + (phase == Phase.MEMBER ? sst.get(row.numChanges) + "/" + sst.get(row.numAcked) + " by " + sst.get(row.proposer) : "-")
                + (trimEchoed ? " trim=" + trimString() : "") + (joinersWaiting.isEmpty() ? "" : " transferring to " + joinersWaiting);
    }

    // ---- views ----

    private boolean leaderProposes() {
        int l = leaderRank();
        if (l == rank) return false;
        NodeId leader = members.get(l);
        return inView(leader) && sst.get(leader, row.proposer) == l + 1 && sst.get(leader, row.numChanges) > 0;
    }

    private boolean viewActive() {
        // Derecho syncs after building a view's SST; here a member sends only once every row shows
        // the view, so no slot is pushed to a member that would refuse it (it is not connected yet).
        for (NodeId m : members) if (sst.get(m, row.vid) != vid) return false;
        if (!everActive) {
            everActive = true;
            // Silence is counted from here: a member that started late has not missed a heartbeat before it.
            Arrays.fill(silentBeats, 0);
        }
        return true;
    }

    /**
     * The first view waits for every configured member to start (Derecho's initial group forms the
     * same way): until all rows have shown it, a member that has not started yet is not a failure.
     */
    private boolean bootstrapping() {
        return vid == 1 && !everActive;
    }

    @SuppressWarnings("unchecked")
    private void install(long newVid, List<NodeId> newMembers, long suspectedBefore) {
        phase = Phase.MEMBER;
        vid = newVid;
        members = List.copyOf(newMembers);
        rank = members.indexOf(self);
        int n = members.size();
        suspectedMask = 0;
        for (int r = 0; r < n; r++) if ((suspectedBefore & bitOfNode(members.get(r))) != 0) suspectedMask |= 1L << r;
        wedged = false;
        trimEchoed = false;
        everActive = false;
        received = new long[n];
        held = new ArrayDeque[n];
        for (int s = 0; s < n; s++) held[s] = new ArrayDeque<>();
        heldBase = new long[n];
        sent = 0;
        delivered = 0;
        lastHeartbeat = new long[n];
        silentBeats = new long[n];
        nonces = new long[n];
        pendingJoins.removeIf(members::contains);
        deliveredInView = 0;
        long heartbeat = sst.get(row.heartbeat);
        sst.clearOwnRow();
        sst.set(row.vid, vid);
        sst.set(row.nonce, nonce);
        sst.set(row.heartbeat, heartbeat);
        sst.set(row.suspected, suspectedMask);
        registerPredicates();
        ctx.installView(new GroupView(vid, members));
        // The guard and the trim flag of the old view are reset in writes of their own before the new
        // view id goes out: a reader that sees the new id sees them at zero (R2), never an old guard.
        sst.push(row.index, others());
        sst.push(row.trimReady, others());
        dirty = true;
        if (suspectedMask != 0) wedge(); // a member already suspected: an immediate further change (derecho.md §5.7)
        else if (!pendingJoins.isEmpty() && leaderRank() == rank) wedge(); // joins that came too late for the last change
    }

    private long bitOfNode(NodeId node) {
        int i = configured.indexOf(node);
        return i < 0 ? 0 : 1L << i;
    }

    private int leaderRank() {
        for (int r = 0; r < members.size(); r++) if ((suspectedMask & (1L << r)) == 0) return r;
        return 0;
    }

    private boolean suspects(int r) {
        return (suspectedMask & (1L << r)) != 0;
    }

    /** A row counts in this view only if it carries this view's id. */
    private boolean inView(NodeId m) {
        return sst.get(m, row.vid) == vid;
    }

    // ---- failure detection (derecho.md §5.1, §5.2, §2.8) ----

    /** derecho.md §5.1 (heartbeat), Appendix B (TCP timeouts): beat, push with completion, count the others' silence. */
    private void onHeartbeat() {
        ctx.schedule(config.heartbeatNanos(), new Heartbeat());
        if (phase == Phase.MEMBER) {
            sst.set(row.heartbeat, sst.get(row.heartbeat) + 1);
            // The failure detector's write asks for a completion: a failed one is a suspicion.
            long pushId = sst.pushRangeWithCompletion(row.vid, row.delivered, others());
            if (!everActive) lastInactivePush = pushId;
            pushFlags();
            // Silence is counted in my own heartbeats, not in time: if my loop stalls (a GC pause), I
            // have not looked, and must not suspect the others for what I did not see.
            long limit = Math.max(2, config.suspicionNanos() / config.heartbeatNanos());
            for (int r = 0; r < members.size(); r++) {
                if (r == rank || suspects(r)) continue;
                long hb = sst.get(members.get(r), row.heartbeat);
                if (hb != lastHeartbeat[r]) {
                    lastHeartbeat[r] = hb;
                    silentBeats[r] = 0;
                } else if (++silentBeats[r] > limit && !bootstrapping()) {
                    suspect(r);
                    if (phase != Phase.MEMBER) return;
                }
            }
            flush();
            probeIfStuck();
        } else if (phase == Phase.JOINING && !incomingMembers.isEmpty()) {
            // A joiner receiving state beats too, so the new view does not suspect it meanwhile.
            sst.set(row.heartbeat, sst.get(row.heartbeat) + 1);
            sst.pushRange(row.vid, row.delivered, incomingMembers.stream().filter(m -> !m.equals(self)).toList());
        }
    }

    /** Every join-retry period while my view is not active: ask its other members whether they moved on. */
    private void probeIfStuck() {
        if (everActive || ctx.nowNanos() - lastProbe < config.joinRetryNanos()) return;
        lastProbe = ctx.nowNanos();
        for (NodeId m : others()) ctx.send(m, new VsyncMessage.ViewProbe(vid, io.tandem.engine.RequestIds.BACKGROUND));
    }

    /** A member that is in a later view without the prober tells it so. */
    private void onViewProbe(NodeId from, VsyncMessage.ViewProbe m) {
        if (phase == Phase.MEMBER && m.vid() < vid && !members.contains(from)) ctx.send(from, new VsyncMessage.Moved(vid, io.tandem.engine.RequestIds.BACKGROUND));
    }

    /** derecho.md §5.4: the group moved on without me; a view that never became active here was not mine to finish. */
    private void onMoved(NodeId from, VsyncMessage.Moved m) {
        if (phase != Phase.MEMBER || m.vid() <= vid) return;
        if (!everActive) {
            // I never saw every row of my view, so I sent and delivered nothing in it: I am a process that
            // started late, not a member that failed, and joining now loses nothing.
            ctx.requestPolling(false);
            sst.predicates().removeAll();
            startJoining();
        } else {
            shutdown("the group moved on to view " + m.vid() + " without me");
        }
    }

    private void onPushCompletion(PushCompletion c) {
        // A push made before every member showed the view may have found a member that has not
        // started, or not yet connected us (it is still finishing the previous view): not a failure.
        // Silence (the heartbeat) still finds a member that never comes.
        if (c.applied() || phase != Phase.MEMBER || !everActive || c.pushId() <= lastInactivePush) return;
        int r = members.indexOf(c.target());
        if (r >= 0 && r != rank && !suspects(r)) suspect(r);
    }

    private int detectSuspicions() {
        int work = 0;
        long seen = suspectedMask;
        for (int r = 0; r < members.size(); r++) {
            NodeId m = members.get(r);
            if (r == rank || suspects(r)) continue; // a suspected row is frozen: its later opinions do not count
            long theirVid = sst.get(m, row.vid);
            if (theirVid > vid + 1 || theirVid == vid + 1 && !trimEchoed) {
                // They finished this view without my echo: they removed me (or I joined a view they already left).
                shutdown("the group moved on to view " + theirVid + " without me");
                return 1;
            }
            if (!inView(m)) continue;
            long theirs = sst.get(m, row.suspected);
            if ((theirs & (1L << rank)) != 0) {
                shutdown("another member reported that I failed");
                return 1;
            }
            seen |= theirs;
            long n = sst.get(m, row.nonce);
            if (nonces[r] == 0) nonces[r] = n;
            else if (n != nonces[r] && !suspects(r)) seen |= 1L << r; // a new process in an old seat
        }
        for (int r = 0; r < members.size(); r++) {
            if ((seen & (1L << r)) != 0 && !suspects(r)) {
                suspect(r);
                work++;
                if (phase != Phase.MEMBER) return work;
            }
        }
        return work;
    }

    /** Suspects rank {@code r}: wedge, spread it, and check the partition rule (derecho.md §5.1–5.2). */
    private void suspect(int r) {
        suspectedMask |= 1L << r;
        sst.set(row.suspected, suspectedMask);
        dirty = true;
        int n = members.size();
        if (Long.bitCount(suspectedMask) >= (n + 1) / 2) {
            // A member that suspects half of the view may be in a minority: it must not go on (no partitions).
            shutdown("suspects " + Long.bitCount(suspectedMask) + " of " + n + " members (minority side)");
            return;
        }
        wedge();
    }

    private int wedge() {
        if (wedged) return 0;
        wedged = true;
        if (viewActive()) receive(); // what is already visible counts in the final received counters
        // Wedging switches the data path off: no more sending, receiving or delivering in this view (derecho.md §8.10).
        sst.predicates().remove(receiveHandle);
        sst.predicates().remove(sendHandle);
        sst.predicates().remove(deliverHandle);
        sst.set(row.wedged, 1);
        dirty = true;
        return 1;
    }

    private void shutdown(String reason) {
        phase = Phase.SHUTDOWN;
        shutdownReason = reason;
        wedged = true;
        for (Outgoing o : queue) ctx.reject(o.requestId(), new Rejection.Unavailable(self + " shut down: " + reason));
        queue.clear();
        joinersWaiting.clear();
        ctx.requestPolling(false);
        sst.predicates().removeAll();
        if (config.rejoinNanos() > 0) ctx.schedule(config.rejoinNanos(), new Rejoin());
    }

    // ---- SMC: sending (derecho.md §3.2, §3.5, §3.6) ----

    private int send() {
        int n = members.size();
        int work = 0;
        // Raw delivery has no round-robin order to keep moving: no nulls.
        long owed = config.delivery() == VsyncConfig.Delivery.RAW ? 0 : RoundRobin.owed(received, n, rank);
        while (windowOpen()) {
            Outgoing o = queue.peek();
            if (o == null && sent >= owed) break;
            if (o != null) queue.poll();
            else o = new Outgoing(NULL, 0, ClientRequest.Session.NONE, new byte[0]);
            putInSlot(o);
            work++;
        }
        batch.publish(sst, sent, others()); // the pass's slots, then the guard once (R5)
        return work;
    }

    /** My message number {@code sent} may go once every member delivered my message W places earlier (derecho.md §3.6). */
    private boolean windowOpen() {
        long k = sent - config.window();
        if (k < 0) return true;
        if (config.delivery() == VsyncConfig.Delivery.RAW) {
            // Raw mode: every member received my message W places earlier, so its slot may be reused (derecho.md §3.6).
            for (NodeId m : members) if (sst.get(m, row.received, rank) < k + 1) return false;
            return true;
        }
        long needed = RoundRobin.position(members.size(), rank, k) + 1;
        for (NodeId m : members) if (sst.get(m, row.delivered) < needed) return false;
        return true;
    }

    private void putInSlot(Outgoing o) {
        int off = row.slotOffset(sent);
        byte[] slot = new byte[VsyncConfig.SLOT_HEADER + o.payload().length];
        ByteBuffer b = ByteBuffer.wrap(slot);
        b.putLong(o.kind() << 56 | o.payload().length);
        b.putLong(vid << 32 | sent);
        b.putLong(o.requestId());
        b.putLong(o.session().clientId());
        b.putLong(o.session().sequence());
        b.putLong(o.session().lowWatermark());
        b.put(o.payload());
        int length = (slot.length + 7) / 8 * 8;
        sst.write(row.slots, off, slot);
        // My own message is held at once (a sender receives its own sends).
        held[rank].add(new Held(o.kind(), sent, o.requestId(), o.session(), o.payload()));
        sent++;
        received[rank] = sent;
        sst.set(row.received, rank, sent);
        // Published with the rest of this pass's slots, then the guard in a separate write (derecho.md §2.5 R5).
        batch.add(sent - 1, length);
        dirty = true;
        if (config.delivery() == VsyncConfig.Delivery.RAW) deliverRaw(rank); // raw: my own message is mine at once, in my order
    }

    // ---- SMC: receiving (derecho.md §3.2, §4.2) ----

    private int receive() {
        int work = 0;
        for (int s = 0; s < members.size(); s++) {
            if (s == rank) continue;
            NodeId sender = members.get(s);
            long available = sst.get(sender, row.index);
            while (received[s] < available) {
                long k = received[s];
                int off = row.slotOffset(k);
                // Read after acquiring the guard (index): the slot's bytes are complete (R5).
                ByteBuffer head = ByteBuffer.wrap(sst.read(sender, row.slots, off, VsyncConfig.SLOT_HEADER));
                long header = head.getLong();
                long stamp = head.getLong();
                if (stamp != (vid << 32 | k)) {
                    // The guard moved past a slot whose data never arrived: a write the transport lost, which
                    // is a failure of the link (derecho.md §1.1). Never deliver from it.
                    if (!suspects(s)) suspect(s);
                    return work + 1;
                }
                int length = (int) (header & 0xffffffL);
                long kind = header >>> 56;
                if (length > config.maxPayloadBytes()) {
                    if (!suspects(s)) suspect(s); // a malformed slot: never trust this row again
                    return work + 1;
                }
                long requestId = head.getLong();
                long clientId = head.getLong();
                long sequence = head.getLong();
                long low = head.getLong();
                byte[] payload = sst.read(sender, row.slots, off + VsyncConfig.SLOT_HEADER, length);
                ClientRequest.Session session = clientId == 0 ? ClientRequest.Session.NONE : new ClientRequest.Session(clientId, sequence, low);
                held[s].add(new Held(kind, k, requestId, session, payload));
                received[s] = k + 1;
                sst.set(row.received, s, k + 1);
                dirty = true;
                work++;
                if (config.delivery() == VsyncConfig.Delivery.RAW && !wedged) deliverRaw(s);
            }
        }
        long prefix = RoundRobin.prefix(received, members.size());
        if (prefix > sst.get(row.seq)) {
            sst.advance(row.seq, prefix);
            dirty = true;
        }
        return work;
    }

    // ---- delivery (derecho.md §4.3, §4.5) ----

    /** How many positions are stable: held by every member. A broken twin in the tests answers otherwise. */
    protected long stableCount() {
        long stable = Long.MAX_VALUE;
        for (NodeId m : members) stable = Math.min(stable, inView(m) ? sst.get(m, row.seq) : 0);
        return stable;
    }

    private int deliverStable() {
        if (config.delivery() == VsyncConfig.Delivery.RAW) return 0;
        long stable = stableCount();
        int n = members.size();
        int work = 0;
        while (delivered < stable) {
            int s = RoundRobin.senderOf(n, delivered);
            long k = RoundRobin.indexOf(n, delivered);
            Held h = take(s, k);
            if (h == null) {
                violation = self + " found position " + delivered + " (sender " + members.get(s) + " #" + k + ") stable but does not hold it";
                return work;
            }
            deliver(members.get(s), h, false);
            delivered++;
            work++;
        }
        if (work > 0) {
            sst.advance(row.delivered, delivered);
            dirty = true;
        }
        return work;
    }

    private void deliverRaw(int s) {
        Held h = held[s].pollFirst();
        heldBase[s]++;
        deliver(members.get(s), h, false);
        delivered++;
        sst.advance(row.delivered, delivered);
    }

    private Held take(int s, long k) {
        while (heldBase[s] < k && !held[s].isEmpty()) {
            held[s].pollFirst();
            heldBase[s]++;
        }
        if (heldBase[s] != k || held[s].isEmpty()) return null;
        heldBase[s]++;
        return held[s].pollFirst();
    }

    private void deliver(NodeId sender, Held h, boolean trimmed) {
        if (wedged && !trimmed && violation == null) violation = self + " delivered " + sender + " #" + h.index() + " in view " + vid + " after wedging";
        long id = messageId(sender, h);
        if (deliveredInView == prefixHashes.length) prefixHashes = Arrays.copyOf(prefixHashes, prefixHashes.length * 2);
        long previous = deliveredInView == 0 ? vid : prefixHashes[deliveredInView - 1];
        prefixHashes[deliveredInView++] = previous * 0x100000001b3L ^ id;
        if (h.kind() == NULL) return; // a null fills a turn and is never delivered (derecho.md §3.5)
        deliveredNonNull++;
        if (h.kind() == READ) {
            if (sender.equals(self)) ctx.serveRead(h.requestId(), appliedIndex); // the read's place in the order: linearizable
            return;
        }
        appliedIndex++;
        ctx.deliver(new Committed(appliedIndex, sender, h.requestId(), h.session(), h.payload()));
    }

    private static long messageId(NodeId sender, Held h) {
        long x = sender.value().hashCode() * 31L + h.index();
        x = x * 31 + h.kind();
        x = x * 31 + h.requestId();
        x = x * 31 + Arrays.hashCode(h.payload());
        return x * 0x9E3779B97F4A7C15L;
    }

    // ---- membership: the change protocol and the ragged trim (derecho.md §5.3–§5.7) ----

    private int changeView() {
        if (trimEchoed) return tryInstall(); // the trim is decided: only the echoes are awaited
        int leader = leaderRank();
        if (leader == rank) return takeoverReady() ? lead() : 0;
        return follow(members.get(leader));
    }

    /** A new leader acts only once every unsuspected row suspects every rank below it (derecho.md §5.3). */
    private boolean takeoverReady() {
        long below = (1L << rank) - 1;
        for (int r = 0; r < members.size(); r++) {
            if (r == rank || suspects(r)) continue;
            NodeId m = members.get(r);
            if (!inView(m) || (sst.get(m, row.suspected) & below) != below) return false;
        }
        return true;
    }

    private int lead() {
        if (trimEchoed) return tryInstall();
        // A trim that any row published or echoed is reused, never recomputed (derecho.md §5.6, V5).
        for (NodeId m : members) {
            if (!m.equals(self) && inView(m) && sst.get(m, row.trimReady) == 1) {
                echoTrim(m);
                return 1;
            }
        }
        int work = propose();
        if (proposalAcked()) {
            publishTrim();
            work++;
        }
        return work;
    }

    /** Builds or extends my proposal (derecho.md §5.5); on takeover starts from the longest batch any row holds. */
    private int propose() {
        int me = rank + 1;
        List<Long> changes = new ArrayList<>();
        if (sst.get(row.proposer) == me) {
            for (int i = 0; i < sst.get(row.numChanges); i++) changes.add(sst.get(row.changes, i));
        } else {
            NodeId longest = self;
            for (NodeId m : members) if (inView(m) && sst.get(m, row.numChanges) > sst.get(longest, row.numChanges)) longest = m;
            for (int i = 0; i < sst.get(longest, row.numChanges); i++) changes.add(sst.get(longest, row.changes, i));
        }
        int before = changes.size();
        boolean fresh = sst.get(row.proposer) != me;
        for (int r = 0; r < members.size(); r++) {
            long code = configured.indexOf(members.get(r)) + 1L;
            if (suspects(r) && !changes.contains(code)) changes.add(code);
        }
        for (NodeId j : pendingJoins) {
            long code = configured.indexOf(j) + 1L;
            if (!changes.contains(code) && changes.size() < 2 * config.maxMembers() && nextMembers(changes).size() < config.maxMembers()) changes.add(code);
        }
        if (!fresh && changes.size() == before) return 0;
        leaderStep = "proposal";
        for (int i = 0; i < changes.size(); i++) sst.set(row.changes, i, changes.get(i));
        sst.set(row.proposer, me);
        sst.set(row.numChanges, changes.size());
        sst.set(row.numAcked, changes.size());
        dirty = true;
        return 1;
    }

    private boolean proposalAcked() {
        long n = sst.get(row.numChanges);
        if (n == 0) return false;
        long me = rank + 1;
        for (int r = 0; r < members.size(); r++) {
            if (r == rank || suspects(r)) continue;
            NodeId m = members.get(r);
            if (!inView(m) || sst.get(m, row.proposer) != me || sst.get(m, row.numAcked) != n || sst.get(m, row.wedged) != 1) return false;
        }
        return true;
    }

    /** The ragged trim for sender {@code s}: the minimum over unsuspected members of what they hold. A broken twin answers otherwise. */
    protected long trimFor(int s) {
        long min = Long.MAX_VALUE;
        for (int r = 0; r < members.size(); r++) {
            if (suspects(r)) continue;
            min = Math.min(min, sst.get(members.get(r), row.received, s));
        }
        return min;
    }

    private void publishTrim() {
        for (int s = 0; s < members.size(); s++) sst.set(row.trim, s, trimFor(s));
        sst.set(row.trimLeader, rank + 1);
        sst.set(row.trimReady, 1);
        trimEchoed = true;
        dirty = true;
        leaderStep = "trim";
    }

    private int follow(NodeId leader) {
        if (!inView(leader)) return 0;
        int work = 0;
        if (!trimEchoed && sst.get(leader, row.trimReady) == 1) {
            echoTrim(leader);
            return 1;
        }
        long proposer = sst.get(leader, row.proposer);
        long n = sst.get(leader, row.numChanges);
        if (!trimEchoed && proposer == members.indexOf(leader) + 1 && n > 0 && (sst.get(row.proposer) != proposer || sst.get(row.numAcked) != n)) {
            for (int i = 0; i < n; i++) sst.set(row.changes, i, sst.get(leader, row.changes, i));
            sst.set(row.proposer, proposer);
            sst.set(row.numChanges, n);
            sst.set(row.numAcked, n);
            dirty = true;
            work++;
        }
        if (trimEchoed) work += tryInstall();
        return work;
    }

    /** Copies the trim and its batch from {@code from}'s row, logs nothing (volatile mode), and echoes it. */
    private void echoTrim(NodeId from) {
        if (sst.get(from, row.trimLeader) != leaderRank() + 1) trimsAdopted++; // a trim of an earlier leader, reused (V5)
        long n = sst.get(from, row.numChanges);
        for (int i = 0; i < n; i++) sst.set(row.changes, i, sst.get(from, row.changes, i));
        sst.set(row.numChanges, n);
        sst.set(row.numAcked, n);
        sst.set(row.proposer, sst.get(from, row.proposer));
        for (int s = 0; s < members.size(); s++) sst.set(row.trim, s, sst.get(from, row.trim, s));
        sst.set(row.trimLeader, sst.get(from, row.trimLeader));
        sst.set(row.trimReady, 1);
        trimEchoed = true;
        dirty = true;
    }

    /** Once every unsuspected member echoed the trim: deliver up to it and install the next view (derecho.md §5.6 step 2, §5.7). */
    private int tryInstall() {
        for (int r = 0; r < members.size(); r++) {
            if (r == rank || suspects(r)) continue;
            NodeId m = members.get(r);
            // A member already in the next view installed it after every echo it needed: the trim is final.
            if (sst.get(m, row.vid) == vid + 1) continue;
            if (!inView(m) || sst.get(m, row.trimReady) != 1) return 0;
        }
        int n = members.size();
        long[] trim = new long[n];
        long end = 0;
        for (int s = 0; s < n; s++) {
            trim[s] = sst.get(row.trim, s);
            if (trim[s] > 0) end = Math.max(end, RoundRobin.position(n, s, trim[s] - 1) + 1);
        }
        if (config.delivery() == VsyncConfig.Delivery.ORDERED) {
            // Round-robin order up to the trim, skipping what lies beyond a sender's trim (the code's rule, derecho.md §5.6).
            for (long g = delivered; g < end; g++) {
                int s = RoundRobin.senderOf(n, g);
                long k = RoundRobin.indexOf(n, g);
                if (k >= trim[s]) continue;
                Held h = take(s, k);
                if (h == null) {
                    violation = self + " must deliver " + members.get(s) + " #" + k + " under the trim of view " + vid + " but does not hold it";
                    return 0;
                }
                deliver(members.get(s), h, true);
            }
        }
        List<Long> changes = new ArrayList<>();
        for (int i = 0; i < sst.get(row.numChanges); i++) changes.add(sst.get(row.changes, i));
        List<NodeId> next = nextMembers(changes);
        // My own messages the trim left out go again first in the next view, in order (derecho.md §5.7, V9).
        List<Outgoing> reissue = new ArrayList<>();
        if (config.delivery() == VsyncConfig.Delivery.ORDERED) {
            for (Held h : held[rank]) if (h.index() >= trim[rank] && h.kind() != NULL) reissue.add(new Outgoing(h.kind(), h.requestId(), h.session(), h.payload()));
        }
        completedViews.put(vid, new long[] {deliveredInView, deliveredInView == 0 ? vid : prefixHashes[deliveredInView - 1]});
        long suspectedNodes = 0;
        for (int r = 0; r < n; r++) if (suspects(r)) suspectedNodes |= bitOfNode(members.get(r));
        List<NodeId> old = members;
        if (!next.contains(self)) {
            shutdown("removed from the group in view " + (vid + 1));
            return 1;
        }
        for (int i = reissue.size() - 1; i >= 0; i--) queue.addFirst(reissue.get(i));
        install(vid + 1, next, suspectedNodes);
        List<NodeId> joined = next.stream().filter(m -> !old.contains(m)).toList();
        if (rank == 0 && !joined.isEmpty()) startTransfer(joined);
        return 1;
    }

    /** The next view: survivors in their order, then joiners in the order of the changes (derecho.md §5.5). */
    private List<NodeId> nextMembers(List<Long> changes) {
        List<NodeId> next = new ArrayList<>(members);
        for (long code : changes) {
            NodeId node = configured.get((int) code - 1);
            if (members.contains(node)) next.remove(node);
            else if (!next.contains(node)) next.add(node);
        }
        return next;
    }

    private void flush() {
        if (!dirty || phase != Phase.MEMBER) return;
        dirty = false;
        String step = leaderStep;
        leaderStep = null;
        if (step != null && stopAfterPublishing(step, vid)) {
            // Test hook: the leader's write reaches only its first follower, then the leader falls silent (a crash mid-push).
            List<NodeId> first = others().subList(0, Math.min(1, others().size()));
            sst.pushRange(row.vid, row.delivered, first);
            if (sst.get(row.trimReady) == 1) sst.push(row.trimReady, first);
            phase = Phase.SHUTDOWN;
            shutdownReason = "stopped by a test after publishing its " + step;
            sst.predicates().removeAll();
            ctx.requestPolling(false);
            return;
        }
        sst.pushRange(row.vid, row.delivered, others());
        pushFlags();
    }

    /** The flags go in their own writes after the data they vouch for (R4/R5). */
    private void pushFlags() {
        if (sst.get(row.wedged) == 1) sst.push(row.wedged, others());
        if (sst.get(row.trimReady) == 1) sst.push(row.trimReady, others());
    }

    private List<NodeId> others() {
        List<NodeId> out = new ArrayList<>(members.size());
        for (NodeId m : members) if (!m.equals(self)) out.add(m);
        return out;
    }

    private String trimString() {
        StringBuilder b = new StringBuilder("[");
        for (int s = 0; s < members.size(); s++) b.append(s == 0 ? "" : ",").append(sst.get(row.trim, s));
        return b.append("]").toString();
    }

    // ---- joins and state transfer (derecho.md §5.4, §5.7) ----

    private void startJoining() {
        phase = Phase.JOINING;
        incomingVid = 0;
        incomingMembers = List.of();
        incomingOffset = 0;
        incomingSnapshot = null;
        onJoinRetry();
    }

    private void onRejoin() {
        if (phase == Phase.SHUTDOWN) startJoining();
    }

    private void onJoinRetry() {
        if (phase != Phase.JOINING) return;
        for (NodeId m : configured) if (!m.equals(self)) ctx.send(m, new VsyncMessage.JoinRequest(nonce, io.tandem.engine.RequestIds.BACKGROUND));
        ctx.schedule(config.joinRetryNanos(), new JoinRetry());
    }

    /** derecho.md §5.4: the leader proposes a joiner; a request from a process whose seat is still in the view means the old one is gone. */
    private void onJoinRequest(NodeId from, VsyncMessage.JoinRequest m) {
        // Only a configured seat may join (it needs a bit in the suspicion mask); the transport vouches for who sent it.
        if (phase != Phase.MEMBER || !configured.contains(from)) return;
        int r = members.indexOf(from);
        if (r >= 0) {
            if (inView(from)) {
                // Its process in my view is gone: the request comes from a new one (derecho.md §5.4). A late
                // request of the process that is in the view now (same nonce) is old news.
                if (!suspects(r) && sst.get(from, row.nonce) != m.nonce()) suspect(r);
            } else if (bootstrapping()) {
                // A process that asks to join holds a seat of the initial view that it never showed: a
                // process that starts fresh installs view 1 itself and never asks, so this one restarted
                // before the initial group formed (seed 23 of the minority model: n3 crashed 0.3 ms in).
                // The initial view waits for every seat and would wait forever; removing the seat is safe
                // (nothing can have been delivered in view 1 before every row showed it) and the process
                // comes back as a joiner of the next view, with the state.
                if (!suspects(r)) suspect(r);
            } else if (rank == 0 && joinersWaiting.contains(from) && !transferReading && ctx.nowNanos() - transferStartedAt > config.joinRetryNanos()) {
                restartTransfer(); // it lost chunks: send the state again
            }
            return;
        }
        if (leaderRank() == rank && pendingJoins.add(from)) wedge();
    }

    private void startTransfer(List<NodeId> joiners) {
        joinersWaiting.clear();
        joinersWaiting.addAll(joiners);
        transferSnapshot = null;
        transferToken = ctx.random().nextLong() & Long.MAX_VALUE | 1;
        transferReading = true;
        transferStartedAt = ctx.nowNanos();
        // The snapshot holds everything delivered up to the end of the old view, and nothing of the new one yet:
        // nothing is delivered until the joiner's row shows the view.
        ctx.takeSnapshot(transferToken);
    }

    private void restartTransfer() {
        if (transferSnapshot == null) return;
        transferReading = true;
        transferStartedAt = ctx.nowNanos();
        ctx.snapshots().readChunk(transferSnapshot, 0, config.stateChunkBytes(), transferToken);
    }

    private void onTransferSnapshotTaken(SnapshotMeta snapshot) {
        if (joinersWaiting.isEmpty()) return;
        transferSnapshot = snapshot;
        ctx.snapshots().readChunk(snapshot, 0, config.stateChunkBytes(), transferToken);
    }

    private void onTransferChunkRead(StorageEvent.SnapshotChunkRead r) {
        joinersWaiting.removeIf(j -> !members.contains(j) || inView(j));
        if (joinersWaiting.isEmpty() || phase != Phase.MEMBER) {
            transferReading = false;
            return;
        }
        for (NodeId j : joinersWaiting) ctx.send(j, new VsyncMessage.StateChunk(vid, members, r.snapshot(), r.offset(), r.data(), r.last(), io.tandem.engine.RequestIds.BACKGROUND));
        if (r.last()) transferReading = false;
        else ctx.snapshots().readChunk(r.snapshot(), r.offset() + r.data().length, config.stateChunkBytes(), transferToken);
    }

    /** derecho.md §5.7: chunks of the state at the start of the view that takes me in, in order; the last installs the view. */
    private void onStateChunk(NodeId from, VsyncMessage.StateChunk c) {
        if (phase != Phase.JOINING || !c.members().contains(self)) return;
        if (installInFlight != 0 && !acceptsStateWhileInstalling()) {
            // A whole copy of the state is with the store, which restores the state machine from it when
            // the write completes, whatever the engine does then. A second copy (the first member sends
            // the state again when my join request repeats, and a slow disk makes that likely) would be
            // restored on its own completion, and store writes complete in any order: the late one would
            // rewind the state machine to the view's start after I had applied the view's first messages
            // on top of the early one (seed 18 of ./tandem sim: applied 44..48, then back to 43, then 49).
            // Dropping it is safe: the copy in flight ends in SnapshotInstalled, which takes me in, or in
            // SnapshotFailed, which clears this and lets the next copy through; a copy of a newer view
            // that I drop is sent again while I am still not in that view (the first member restarts the
            // transfer on my repeated requests), and installing the older view first only means I find
            // the group moved on and join again.
            stateCopiesIgnored++;
            return;
        }
        if (c.offset() == 0 && c.vid() >= incomingVid) {
            incomingVid = c.vid();
            incomingMembers = c.members();
            incomingSnapshot = c.snapshot();
            incomingOffset = 0;
        }
        if (c.vid() != incomingVid || !c.snapshot().equals(incomingSnapshot) || c.offset() != incomingOffset) return;
        incomingOffset += c.data().length;
        long token = 0;
        if (c.last()) {
            token = -(++installTokens); // negative: never equal to a transfer's token, which is positive
            installInFlight = token;
        }
        ctx.snapshots().writeChunk(c.snapshot(), c.offset(), c.data(), c.last(), token);
    }

    private void onStateInstalled(SnapshotMeta snapshot) {
        installInFlight = 0;
        appliedIndex = snapshot.lastIncludedIndex();
        List<NodeId> view = incomingMembers;
        long id = incomingVid;
        incomingSnapshot = null;
        incomingMembers = List.of();
        ctx.cancel(new JoinRetry());
        install(id, view, 0L);
        ctx.requestPolling(true);
        flush();
    }

    // ---- for invariants and tests ----

    /**
     * Test hook for directed failures (derecho.md §9.3 S5, S6): true makes this member, as leader,
     * push {@code step} ("proposal" or "trim") of view {@code viewId} to its first follower only and
     * then fall silent, as a crash in the middle of the push. Never true outside tests.
     */
    protected boolean stopAfterPublishing(String step, long viewId) {
        return false;
    }

    /**
     * Whether a joiner writes a further copy of the state while a whole copy is still with the store.
     * Never outside tests: a broken twin answers true (the bug of seed 18, see {@link #onStateChunk}).
     */
    protected boolean acceptsStateWhileInstalling() {
        return false;
    }

    /** Copies of the state this joiner dropped because a whole copy was still with the store. */
    public long stateCopiesIgnored() {
        return stateCopiesIgnored;
    }

    /** What {@code member}'s row says it holds of sender rank {@code sender} (for the tests' broken twins). */
    protected final long receivedBy(NodeId member, int sender) {
        return sst.get(member, row.received, sender);
    }

    /** My own received prefix in the round-robin order (for the tests' broken twins). */
    protected final long ownSeq() {
        return sst.get(row.seq);
    }

    /** Trims this member reused as a new leader instead of computing one (derecho.md §5.6, V5). */
    public long trimsAdopted() {
        return trimsAdopted;
    }

    public Phase phase() {
        return phase;
    }

    public long viewId() {
        return vid;
    }

    public List<NodeId> viewMembers() {
        return members;
    }

    public boolean isWedged() {
        return wedged;
    }

    /** Positions delivered in the current view (nulls included) and the hash of that prefix. */
    int deliveredInView() {
        return deliveredInView;
    }

    long prefixHash(int count) {
        return count == 0 ? vid : prefixHashes[count - 1];
    }

    /** For each view this member left: how many positions it delivered in it and the hash of the sequence. */
    Map<Long, long[]> completedViews() {
        return completedViews;
    }

    /** A broken rule this member noticed about itself (delivery after wedge, a stable message it does not hold). */
    String violation() {
        return violation;
    }

    public long deliveredMessages() {
        return deliveredNonNull;
    }
}


