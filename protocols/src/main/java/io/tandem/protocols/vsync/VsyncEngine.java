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
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.LayoutResult;
import io.tandem.protocols.vsync.layout.Shard;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
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
    /** The control range's push after a pass that changed it: only the changed data counters when nothing else changed. */
    private final ControlPush controlPush;
    private EngineContext ctx;
    private Sst sst;
    private long nonce;

    private Phase phase = Phase.JOINING;
    private String shutdownReason = "";

    // ---- the current view ----
    private long vid;
    private List<NodeId> members = List.of();
    /** The view's rows by rank, looked up once per view (a predicate pass reads them on every poll). */
    private Sst.Members viewRows;
    /** See {@link #hashWholePayloads}. */
    private boolean wholePayloadHashes;
    /** Whether every row showed the view in this predicate pass: 0 not yet read, 1 yes, -1 no. */
    private int activeThisPass;
    /**
     * Something the predicates read besides the peers' rows may have changed since the last pass that
     * found nothing to do: an event reached the engine (a request, a message, a timer, a storage
     * event, a typed send) or the last pass did work. See {@link #doWork}.
     */
    private boolean inputsChanged = true;
    /** {@link Sst#peerChanges} (and the durable log index) read before the last pass that found nothing to do. */
    private long idleChanges = -1;
    private long idleDurable = -1;
    /** The view's members but me, the targets of my row's pushes. */
    private List<NodeId> others = List.of();
    private int rank;
    private long suspectedMask;
    private boolean wedged;
    private boolean trimEchoed;
    /** Delivering under the trim (epoch termination): the one time delivery after wedging is right. */
    private boolean terminating;
    private long[] lastHeartbeat = new long[0];
    private long[] silentBeats = new long[0];
    private long[] nonces = new long[0];
    private boolean dirty;
    /** Busy passes in a row whose data-counter change was left for a later push (see {@link #flush(boolean)}). */
    private int deferredInARow;
    /** At most this many busy passes in a row leave a data-counter change unpushed. */
    static final int MAX_DEFERRED_PUSHES = 4;
    private boolean everActive;
    private long lastInactivePush;
    private String leaderStep;
    private long trimsAdopted;
    private Predicates.Handle receiveHandle;
    private Predicates.Handle sendHandle;
    private Predicates.Handle deliverHandle;

    private final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
    // ---- subgroups and shards (derecho.md §1.3, §4.1) ----
    private final LayoutFunction layoutFunction;
    /**
     * Whether the layout has the {@link #GROUP} subgroup, decided once: {@link LayoutFunction#subgroups()} is fixed
     * for the life of the group, and an allocator's answers it with a new stream and list on every call (a per-send
     * allocation when {@link #onClientRequest} asked it for every message).
     */
    private final boolean hasGroup;
    /** {@link #onPushCompletion} as the sink {@link #doWork} polls with on every loop turn: one object, not a new method reference per turn. */
    private final java.util.function.Consumer<PushCompletion> onPushCompletion = this::onPushCompletion;
    private final ShardReceiver shardReceiver;
    private Layout layout = Layout.EMPTY;
    /** The shards I serve in the current view, one per subgroup at most, in subgroup order. */
    private List<ShardState> shards = List.of();
    /** {@link #shards} without {@link #group}. */
    private List<ShardState> typedShards = List.of();
    /** The shard whose send passes leave their guard to {@link #flush(boolean)} (the view's only shard), else null. */
    private ShardState guardShard;
    /** My shard of {@link #GROUP}, whose messages feed the state machine (null if I serve none). */
    private ShardState group;
    /** Ordered sends waiting for a window slot, per subgroup other than {@link #GROUP}; kept across views while my shard stays. */
    private final Map<String, ArrayDeque<Outgoing>> typedQueues = new java.util.HashMap<>();
    private final Map<String, ShardId> typedQueueShard = new java.util.HashMap<>();
    private long shardMoves;
    private long sendsDroppedByMoves;
    private String inadequate;
    private long queries;
    private final TreeMap<Long, Map<ShardId, long[]>> completedShardViews = new TreeMap<>();
    private final TreeMap<Long, Layout> layouts = new TreeMap<>();
    /** A fingerprint of each layout in {@link #layouts}, so the simulator's per-event agreement check compares numbers. */
    private final TreeMap<Long, Long> layoutPrints = new TreeMap<>();
    private final LinkedHashSet<NodeId> pendingJoins = new LinkedHashSet<>();
    private long lastProbe;
    private long appliedIndex;

    // ---- joining, and state transfer to joiners (as the first member of a new view) ----
    private final IncomingState incoming = new IncomingState();
    private final StateTransfer transfer = new StateTransfer();

    // ---- durable shards and total-failure restart (derecho.md §4.6, §5.9) ----
    /** How this member came to the view it installs: what its durable shards carry over (derecho.md §5.7). */
    private enum Arrival { INITIAL, CONTINUING, JOINED, RESTART }

    /** Whether the layout has durable shards: then the log holds their histories and the views. */
    private final boolean durableMode;
    private DurableShards store;
    /** The durable shards I serve in the current view. */
    private List<ShardId> durableServed = List.of();
    /** The view whose record I logged before echoing the trim that leads to it, and the record's log index. */
    private long loggedNextVid;
    private long loggedNextIndex;
    private List<NodeId> loggedNextMembers = List.of();
    private long loggedNextBallot;
    /** Restart sources named by the restart view, for shards whose history I have not copied yet. */
    private final Map<ShardId, NodeId> historySources = new java.util.HashMap<>();
    /** The restart leader's round (used at {@link #restartLeader()} only). */
    private final RestartLeader asRestartLeader = new RestartLeader();
    /** A restarting member: the decision it logged, and that record's log index. */
    private VsyncMessage.RestartPrepare accepted;
    private long acceptedIndex;
    private long restarts;
    private long lastFetch;
    private long historiesCopied;

    // ---- refilling a durable shard that lost every member (derecho.md §5.10) ----
    /**
     * A change that takes a seat's new process in while the seat's old process is still in the view
     * (suspected): the old one goes, the new one is appended as a joiner (derecho.md §5.4). Proposed
     * only while the next view would otherwise be inadequate: a shard that cannot be filled without
     * the returning process would keep the group wedged forever, since its seat leaves only with a view
     * that cannot be installed.
     */
    static final long REJOIN = 1L << 40;
    /**
     * A change naming the member (low 16 bits) whose log refills durable shard number (bits 16–39) of
     * the current layout's durable shards, which keeps none of its members (derecho.md §5.10); it
     * changes no membership.
     */
    static final long SOURCE = 1L << 41;
    /** Leader: processes asking to join whose seats are suspected in my view, with what their logs hold. */
    private final Map<NodeId, VsyncMessage.JoinRequest> rejoins = new java.util.LinkedHashMap<>();
    /** The durable shards this view refilled from a former member's log, and that member (derecho.md §5.10). */
    private Map<ShardId, NodeId> viewSources = Map.of();
    private Map<ShardId, NodeId> loggedNextSources = Map.of();
    private long refills;

    // ---- records for the simulator's invariants ----
    private final TreeMap<Long, long[]> completedViews = new TreeMap<>(); // vid -> {count, hash}
    private String violation;
    private long deliveredNonNull;

    /**
     * The subgroup of the default layout: one shard of every member. Its messages are the client
     * requests and feed the state machine (the channel API); a layout function may declare it beside
     * its own subgroups, whose messages go to the {@link ShardReceiver}.
     */
    public static final String GROUP = "group";

    /** A member of a group with one shard of every member ({@link #defaultLayout}). */
    public VsyncEngine(NodeId self, List<NodeId> configured, VsyncConfig config) {
        this(self, configured, config, defaultLayout(config), ShardReceiver.NONE);
    }

    /** The layout of a plain group: subgroup {@link #GROUP}, one shard of every member of the view. */
    public static LayoutFunction defaultLayout(VsyncConfig config) {
        DeliveryMode mode = config.delivery() == VsyncConfig.Delivery.RAW ? DeliveryMode.RAW : DeliveryMode.ORDERED;
        return new ShardAllocator(List.of(new SubgroupPolicy(GROUP, 1, 1, config.maxMembers(), mode)));
    }

    /**
     * A member of a group whose view is divided by {@code layout} into subgroups and shards, re-run on
     * every view (derecho.md §1.3); messages of subgroups other than {@link #GROUP} go to {@code receiver}.
     */
    public VsyncEngine(NodeId self, List<NodeId> configured, VsyncConfig config, LayoutFunction layout, ShardReceiver receiver) {
        if (layout.subgroups().isEmpty()) throw new IllegalArgumentException("the layout declares no subgroup");
        if (layout.subgroups().contains(GROUP) && layout.maxShards(GROUP) != 1) throw new IllegalArgumentException("subgroup " + GROUP + " must have exactly one shard");
        this.layoutFunction = layout;
        this.hasGroup = layout.subgroups().contains(GROUP);
        this.shardReceiver = receiver;
        if (!configured.contains(self)) throw new IllegalArgumentException(self + " is not among the members " + configured);
        if (configured.size() > config.maxMembers()) {
            throw new IllegalArgumentException(configured.size() + " members but maxMembers is " + config.maxMembers());
        }
        this.self = self;
        this.configured = List.copyOf(configured);
        this.config = config;
        this.row = new VsyncRow(config, layout.subgroups().size());
        this.controlPush = new ControlPush(row);
        Layout first = layout.allocate(Layout.EMPTY, configured) instanceof LayoutResult.Adequate a ? a.layout() : Layout.EMPTY;
        Shard groupShard = first.shard(GROUP, 0);
        if (groupShard != null && groupShard.mode() == DeliveryMode.DURABLE) {
            throw new IllegalArgumentException("subgroup " + GROUP + " feeds the state machine (snapshots, state transfer) and cannot be durable; declare a durable subgroup beside it");
        }
        this.durableMode = !RestartPlanner.durableShards(layout, first).isEmpty();
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
        if (durableMode) {
            // The log is the only durable state of the shards: rebuild their histories and my place in them.
            store = new DurableShards(ctx.log(), self, new DurableRecord.View(1, 0, configured, flatShards(initialLayout(configured)), true, Map.of()));
            store.recover(v -> layoutFrom(v.members(), v.shards()), l -> RestartPlanner.durableShards(layoutFunction, l));
            loggedNextVid = store.lastView().vid();
        }
        if (restarted) {
            // A restarted process lost its volatile state: it is a new process and joins (derecho.md §5.4).
            startJoining();
        } else {
            install(1, configured, 0L, initialLayout(configured), Arrival.INITIAL, Map.of());
        }
        ctx.schedule(config.heartbeatNanos(), new Heartbeat());
        ctx.requestPolling(true);
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        inputsChanged = true;
        switch ((VsyncMessage) message) {
            case VsyncMessage.JoinRequest m -> onJoinRequest(from, m);
            case VsyncMessage.StateChunk m -> onStateChunk(from, m);
            case VsyncMessage.Moved m -> onMoved(from, m);
            case VsyncMessage.ViewProbe m -> onViewProbe(from, m);
            case VsyncMessage.P2pQuery m -> onP2pQuery(from, m);
            case VsyncMessage.P2pReply m -> onP2pReply(from, m);
            case VsyncMessage.RestartReport m -> onRestartReport(from, m);
            case VsyncMessage.RestartPrepare m -> onRestartPrepare(from, m);
            case VsyncMessage.RestartAck m -> onRestartAck(from, m);
            case VsyncMessage.RestartCommit m -> onRestartCommit(from, m);
            case VsyncMessage.HistoryFetch m -> onHistoryFetch(from, m);
            case VsyncMessage.HistoryReply m -> onHistoryReply(from, m);
            case VsyncMessage.RdmcReady m -> onRdmcReady(from, m);
            case VsyncMessage.RdmcBlock m -> onRdmcBlock(from, m);
        }
    }

    @Override
    public void onTimer(TimerKey key) {
        inputsChanged = true;
        switch (key) {
            case Heartbeat h -> onHeartbeat();
            case JoinRetry j -> onJoinRetry();
            case Rejoin r -> onRejoin();
            default -> throw new IllegalArgumentException("unknown timer " + key);
        }
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        inputsChanged = true;
        if (phase != Phase.MEMBER) {
            ctx.reject(request.requestId(), new Rejection.Unavailable(self + " is " + (phase == Phase.JOINING ? "joining the group" : "shut down: " + shutdownReason)));
            return;
        }
        if (!hasGroup) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("the layout has no " + GROUP + " subgroup: use orderedSend to a shard"));
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
        inputsChanged = true;
        switch (event) {
            case StorageEvent.SnapshotTaken t when transfer.owns(t.token()) -> onTransferSnapshotTaken(t.snapshot());
            case StorageEvent.SnapshotChunkRead r when transfer.owns(r.token()) -> onTransferChunkRead(r);
            case StorageEvent.SnapshotFailed f when transfer.owns(f.token()) -> transfer.readEnded(); // the joiner's retry restarts it
            case StorageEvent.SnapshotInstalled i when phase == Phase.JOINING && incoming.installs(i.token(), i.snapshot()) -> onStateInstalled(i.snapshot());
            case StorageEvent.SnapshotFailed f when phase == Phase.JOINING -> incoming.failed(f.token());
            default -> { }
        }
    }

    /**
     * The poll hook (derecho.md §8.8): the push completions, then one pass of the SST predicates, then
     * one flush of what they changed in my row. The order of a pass is derecho.md §8.9's: failures,
     * receive, send, deliver, membership.
     *
     * <p>A pass is skipped when it would find what the last one found, nothing: the predicates are
     * functions of the rows and of this engine's own state, so if no peer's row changed since before
     * the last pass ({@link Sst#peerChanges}, counted by the transport after a write's bytes are in
     * memory), nothing reached the engine since ({@link #inputsChanged}), the last pass did nothing
     * (a pass that did work changed my state and is followed by another) and, in durable mode, the
     * log's durable index did not move, the pass is a no-op. The loop spins on such polls before it
     * parks, and a full pass on each (every row's view id, suspicions, counters) was the largest cost
     * of the loop in the loopback benchmark. A write that lands during a pass moves the count after
     * the pass read it, so the next poll runs.
     */
    @Override
    public int doWork() {
        if (phase != Phase.MEMBER) return 0;
        int work = ctx.regions().pollCompletions(onPushCompletion);
        if (phase != Phase.MEMBER) return work;
        long changes = sst.peerChanges();
        long durable = durableMode ? ctx.log().durableIndex() : 0;
        if (work == 0 && !inputsChanged && changes >= 0 && changes == idleChanges && durable == idleDurable) return 0;
        inputsChanged = false;
        activeThisPass = 0;
        work += sst.predicates().evaluate();
        flush(work > 0);
        if (work > 0 || phase != Phase.MEMBER) {
            inputsChanged = true; // what this pass did is input of the next
        } else {
            idleChanges = changes;
            idleDurable = durable;
        }
        return work;
    }

    /**
     * The predicates of a view: all recurrent, with the check-and-act in the trigger (derecho.md
     * §2.6). The data-path ones hold only while the view is active and are removed by {@link #wedge}.
     */
    private void registerPredicates() {
        var p = sst.predicates();
        p.removeAll();
        p.insert("suspicions", () -> phase == Phase.MEMBER, this::detectSuspicions, Predicates.Kind.RECURRENT);
        p.insert("leader-proposes", () -> phase == Phase.MEMBER && !wedged && leaderProposes(), this::wedge, Predicates.Kind.ONE_TIME);
        receiveHandle = p.insert("receive", this::dataPathOpen, this::receive, Predicates.Kind.RECURRENT);
        sendHandle = p.insert("send", this::dataPathOpen, this::send, Predicates.Kind.RECURRENT);
        deliverHandle = p.insert("deliver", this::dataPathOpen, this::deliverStable, Predicates.Kind.RECURRENT);
        p.insert("view-change", () -> phase == Phase.MEMBER && wedged, this::changeView, Predicates.Kind.RECURRENT);
        // Persistence facts stay true through a wedge (a suspected member's frozen row shows what it did persist).
        if (durableMode) p.insert("persisted", () -> phase == Phase.MEMBER, this::publishPersisted, Predicates.Kind.RECURRENT);
    }

    private boolean dataPathOpen() {
        if (phase != Phase.MEMBER || wedged) return false;
        // The three data-path predicates of a pass read every row's view id once, not three times.
        if (activeThisPass == 0) activeThisPass = viewActive() ? 1 : -1;
        return activeThisPass > 0;
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
 + " suspected=" + Long.toBinaryString(suspectedMask) + (wedged ? " WEDGED" : "") + " shards=" + shards.stream().map(ShardState::describe).toList()
                + (inadequate != null ? " inadequate(" + inadequate + ")" : "") + " applied=" + appliedIndex + " queue=" + queue.size() + " proposal=" + (phase == Phase.MEMBER ? sst.get(row.numChanges) + "/" + sst.get(row.numAcked) + " by " + sst.get(row.proposer) : "-")
                + (trimEchoed ? " trim=" + trimString() : "") + (transfer.joiners().isEmpty() ? "" : " transferring to " + transfer.joiners());
    }

    /**
     * Makes the prefix hashes the simulator's invariants compare cover every payload byte of every
     * delivered message (VirtualSynchronyProtocol#createSimulatedEngine); production engines hash a
     * message's identity, length and three bytes, which costs nothing per byte. Call before start.
     */
    void hashWholePayloads() {
        wholePayloadHashes = true;
    }

    // ---- views ----

    private boolean leaderProposes() {
        int l = leaderRank();
        if (l == rank) return false;
        return inView(l) && viewRows.get(l, row.proposer) == l + 1 && viewRows.get(l, row.numChanges) > 0;
    }

    private boolean viewActive() {
        // Derecho syncs after building a view's SST; here a member sends only once every row shows
        // the view, so no slot is pushed to a member that would refuse it (it is not connected yet).
        for (int r = 0; r < members.size(); r++) if (viewRows.get(r, row.vid) != vid) return false;
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
    private void install(long newVid, List<NodeId> newMembers, long suspectedBefore, Layout newLayout, Arrival arrival, Map<ShardId, NodeId> sources) {
        phase = Phase.MEMBER;
        inputsChanged = true;
        vid = newVid;
        members = List.copyOf(newMembers);
        rank = members.indexOf(self);
        viewRows = sst.members(members);
        others = members.stream().filter(m -> !m.equals(self)).toList();
        controlPush.reset(); // new targets, a cleared row: the next push sends the whole range
        deferredInARow = 0;
        int n = members.size();
        suspectedMask = 0;
        for (int r = 0; r < n; r++) if ((suspectedBefore & bitOfNode(members.get(r))) != 0) suspectedMask |= 1L << r;
        wedged = false;
        trimEchoed = false;
        terminating = false;
        inadequate = null;
        everActive = false;
        lastHeartbeat = new long[n];
        silentBeats = new long[n];
        nonces = new long[n];
        pendingJoins.removeIf(members::contains);
        rejoins.clear();
        viewSources = arrival == Arrival.RESTART ? Map.of() : Map.copyOf(sources);
        long heartbeat = sst.get(row.heartbeat);
        sst.clearOwnRow();
        sst.set(row.vid, vid);
        sst.set(row.nonce, nonce);
        sst.set(row.heartbeat, heartbeat);
        sst.set(row.suspected, suspectedMask);
        openShards(newLayout);
        if (durableMode) enterDurableShards(arrival, sources);
        registerPredicates();
        ctx.installView(new GroupView(vid, members));
        shardReceiver.viewInstalled(vid, layout);
        // The guards and the trim flag of the old view are reset in writes of their own before the new
        // view id goes out: a reader that sees the new id sees them at zero (R2), never an old guard.
        for (VsyncRow.Block b : row.blocks) sst.push(b.index, others());
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

    /** {@link #inView(NodeId)} of rank {@code r}. */
    private boolean inView(int r) {
        return viewRows.get(r, row.vid) == vid;
    }

    // ---- failure detection (derecho.md §5.1, §5.2, §2.8) ----

    /** derecho.md §5.1 (heartbeat), Appendix B (TCP timeouts): beat, push with completion, count the others' silence. */
    private void onHeartbeat() {
        ctx.schedule(config.heartbeatNanos(), new Heartbeat());
        if (phase == Phase.MEMBER) {
            sst.set(row.heartbeat, sst.get(row.heartbeat) + 1);
            // The failure detector's write asks for a completion: a failed one is a suspicion.
            long pushId = sst.pushRangeWithCompletion(row.vid, row.lastCounter, others());
            if (!everActive) lastInactivePush = pushId;
            pushFlags();
            // That write carried my whole control range: the next pass compares against it instead of pushing the
            // whole range again for the heartbeat word, and a change deferred so far went with it (no flush owed).
            controlPush.recordWholePush(sst);
            if (leaderStep == null) {
                dirty = false;
                deferredInARow = 0;
            }
            // Silence is counted in my own heartbeats, not in time: if my loop stalls (a GC pause), I
            // have not looked, and must not suspect the others for what I did not see.
            long limit = silenceLimit();
            long over = 0;
            for (int r = 0; r < members.size(); r++) {
                if (r == rank || suspects(r)) continue;
                long hb = viewRows.get(r, row.heartbeat);
                if (hb != lastHeartbeat[r]) {
                    lastHeartbeat[r] = hb;
                    silentBeats[r] = 0;
                } else if (++silentBeats[r] > limit && !bootstrapping()) {
                    over |= 1L << r;
                }
            }
            // Suspicions are published to every member and adopted on one member's word (§5.1), so a member
            // cut off from the others must not publish the first of them: a reliable link holds the write
            // across the cut and delivers it after the heal to members that do not suspect it yet, and a
            // healthy member is removed on the word of the one that was cut off (two out from one fault).
            // While the others still on their way to the limit would make a majority with these, wait: they
            // come back (then these are failures of a group I still hear), or they cross it as well, and the
            // partition rule shuts me down in this same pass, before anything is pushed.
            if (over != 0 && (halfwaySilent(limit) == 0 || Long.bitCount(suspectedMask | over | halfwaySilent(limit)) < majority())) {
                for (int r = 0; r < members.size(); r++) {
                    if ((over & (1L << r)) == 0) continue;
                    suspect(r);
                    if (phase != Phase.MEMBER) return;
                }
            }
            if (!wedged) for (ShardState st : shards) if (st.large != null) st.large.tick(); // a lost ask or block is asked for again
            flush();
            probeIfStuck();
            if (durableMode && ctx.nowNanos() - lastFetch >= config.joinRetryNanos()) {
                lastFetch = ctx.nowNanos();
                for (ShardId id : durableServed) if (!store.of(id).complete) fetchHistory(id);
            }
        } else if (phase == Phase.JOINING && !incoming.members().isEmpty()) {
            // A joiner receiving state beats too, so the new view does not suspect it meanwhile.
            sst.set(row.heartbeat, sst.get(row.heartbeat) + 1);
            sst.pushRange(row.vid, row.lastCounter, incoming.members().stream().filter(m -> !m.equals(self)).toList());
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
        if (r < 0 || r == rank || suspects(r)) return;
        long halfway = halfwaySilent(silenceLimit()) & ~(1L << r);
        if (halfway != 0 && Long.bitCount(suspectedMask | (1L << r) | halfway) >= majority()) {
            // A broken connection while the members still silent would make a majority with it: I am most
            // likely the one cut off. Publishing the suspicion could remove a healthy member after the heal
            // (see onHeartbeat), and not suspecting is no option (writes to it were lost): stop, which is safe.
            shutdown("lost the connection to " + c.target() + " while " + Long.bitCount(halfway) + " other member(s) are silent (minority side)");
            return;
        }
        suspect(r);
    }

    /** Silent heartbeats after which a member is suspected: silence is counted in my own beats. */
    private long silenceLimit() {
        return Math.max(2, config.suspicionNanos() / config.heartbeatNanos());
    }

    /** Members, not suspected, silent for more than half the limit but not over it: on their way to suspicion. */
    private long halfwaySilent(long limit) {
        long out = 0;
        if (bootstrapping()) return out;
        for (int r = 0; r < members.size(); r++) {
            if (r != rank && !suspects(r) && silentBeats[r] > limit / 2 && silentBeats[r] <= limit) out |= 1L << r;
        }
        return out;
    }

    /** The partition rule's bound (§5.2): suspecting this many members of the view means I may be in a minority. */
    private int majority() {
        return (members.size() + 1) / 2;
    }

    private int detectSuspicions() {
        int work = 0;
        long seen = suspectedMask;
        for (int r = 0; r < members.size(); r++) {
            if (r == rank || suspects(r)) continue; // a suspected row is frozen: its later opinions do not count
            long theirVid = viewRows.get(r, row.vid);
            if (theirVid > vid + 1 || theirVid == vid + 1 && !trimEchoed) {
                // They finished this view without my echo: they removed me (or I joined a view they already left).
                shutdown("the group moved on to view " + theirVid + " without me");
                return 1;
            }
            if (theirVid != vid) continue;
            long theirs = viewRows.get(r, row.suspected);
            if ((theirs & (1L << rank)) != 0) {
                shutdown("another member reported that I failed");
                return 1;
            }
            seen |= theirs;
            long n = viewRows.get(r, row.nonce);
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
        transfer.abandon();
        ctx.requestPolling(false);
        sst.predicates().removeAll();
        if (config.rejoinNanos() > 0) ctx.schedule(config.rejoinNanos(), new Rejoin());
    }

    // ---- subgroups and shards (derecho.md §1.3, §4.1) ----

    /** The first view's layout: inadequate means the configured members cannot fill the shards, a configuration error. */
    private Layout initialLayout(List<NodeId> view) {
        return switch (layoutFunction.allocate(Layout.EMPTY, view)) {
            case LayoutResult.Adequate a -> a.layout();
            case LayoutResult.Inadequate i -> throw new IllegalStateException("the configured members cannot fill the layout: " + i.reason());
        };
    }

    /**
     * One {@link ShardState} per shard I serve in the new view, over its subgroup's block of columns.
     * Every member computed the same layout (a pure function of the previous layout and the view, or,
     * for a joiner, the layout sent with the state), so the shards' members agree.
     */
    private void openShards(Layout newLayout) {
        Map<String, ShardId> before = new java.util.HashMap<>();
        for (ShardState st : shards) before.put(st.subgroupName, st.id());
        layout = newLayout;
        layouts.put(vid, newLayout);
        layoutPrints.put(vid, fingerprint(newLayout));
        while (layouts.size() > 4) layouts.pollFirstEntry();
        while (layoutPrints.size() > 4) layoutPrints.pollFirstEntry();
        List<ShardState> mine = new ArrayList<>();
        group = null;
        List<String> names = layoutFunction.subgroups();
        for (int g = 0; g < names.size(); g++) {
            String name = names.get(g);
            List<Shard> list = newLayout.subgroups().getOrDefault(name, List.of());
            ShardId now = null;
            for (int i = 0; i < list.size(); i++) {
                Shard shard = list.get(i);
                if (!shard.members().contains(self)) continue;
                now = new ShardId(name, i);
                ArrayDeque<Outgoing> q = name.equals(GROUP) ? queue : typedQueue(name, now);
                ShardState st = new ShardState(sst, row, shardHost, vid, g, name, i, shard.members(), self, shard.mode() == DeliveryMode.RAW, q, config);
                if (wholePayloadHashes) st.hashWholePayloads();
                mine.add(st);
                if (name.equals(GROUP)) group = st;
            }
            ShardId was = before.get(name);
            if (was != null && !was.equals(now)) shardMoves++;
            if (now == null && !name.equals(GROUP)) typedQueue(name, null);
        }
        shards = List.copyOf(mine);
        typedShards = shards.stream().filter(st -> st != group).toList();
        // The view's one shard (the group of the large-message benchmark): its guard rides with the pass's counters.
        guardShard = shards.size() == 1 && row.blocks.size() == 1 && shards.getFirst().members.size() == members.size() ? shards.getFirst() : null;
        if (guardShard != null) guardShard.guardWithCounters();
    }

    /** A hash of every shard's members, subgroup by subgroup: equal layouts have equal fingerprints. */
    private long fingerprint(Layout l) {
        long h = 0xcbf29ce484222325L;
        for (String name : layoutFunction.subgroups()) {
            h = (h ^ name.hashCode()) * 0x100000001b3L;
            for (Shard shard : l.subgroups().getOrDefault(name, List.of())) {
                h = (h ^ 0x5bd1e995L) * 0x100000001b3L; // a shard boundary
                for (NodeId m : shard.members()) h = (h ^ m.value().hashCode()) * 0x100000001b3L;
            }
        }
        return h;
    }

    /** The waiting sends of subgroup {@code name}; they were for a shard I left if it is not {@code shard}: dropped (they were never sent). */
    private ArrayDeque<Outgoing> typedQueue(String name, ShardId shard) {
        ArrayDeque<Outgoing> q = typedQueues.computeIfAbsent(name, k -> new ArrayDeque<>());
        if (!java.util.Objects.equals(typedQueueShard.get(name), shard)) {
            sendsDroppedByMoves += q.size();
            q.clear();
            typedQueueShard.put(name, shard);
        }
        return q;
    }

    private final ShardState.Host shardHost = new ShardState.Host() {
        @Override
        public void deliver(ShardState shard, NodeId sender, Held h) {
            deliverFrom(shard, sender, h);
        }

        @Override
        public void suspect(NodeId member) {
            int r = members.indexOf(member);
            if (r >= 0 && !suspects(r)) VsyncEngine.this.suspect(r);
        }

        @Override
        public boolean inView(NodeId member) {
            return VsyncEngine.this.inView(member);
        }

        @Override
        public void send(NodeId to, VsyncMessage message) {
            ctx.send(to, message);
        }

        @Override
        public byte[] largePayload(ShardState shard, int origin, long index, int size) {
            return VsyncEngine.this.largePayload(shard.id(), origin, index, size);
        }
    };

    /**
     * Large messages move only in the view they belong to, and not once it is wedged: a wedge
     * abandons the transfers under way (derecho.md §3.1: a wedged session delivers nothing more), and
     * the ragged trim decides what of them is delivered (see {@link ShardState#receive}).
     */
    private boolean rdmcOpen(long messageVid) {
        return phase == Phase.MEMBER && !wedged && messageVid == vid;
    }

    private void onRdmcReady(NodeId from, VsyncMessage.RdmcReady m) {
        LargeMessages l = rdmcOpen(m.vid()) ? largeOf(m.subgroup(), m.shard()) : null;
        if (l != null) l.onReady(from, m);
    }

    private void onRdmcBlock(NodeId from, VsyncMessage.RdmcBlock m) {
        LargeMessages l = rdmcOpen(m.vid()) ? largeOf(m.subgroup(), m.shard()) : null;
        if (l != null) l.onBlock(from, m);
    }

    private LargeMessages largeOf(String subgroup, int index) {
        for (ShardState st : shards) if (st.subgroupName.equals(subgroup) && st.shardIndex == index) return st.large;
        return null;
    }

    /** The payload of large message {@code index} of shard rank {@code origin} once complete here, else null. A broken twin in the tests answers otherwise. */
    protected byte[] largePayload(ShardId shard, int origin, long index, int size) {
        return shard(shard).large.payload(origin, index, size);
    }

    /** Whatever of that payload has arrived (zeros elsewhere), or null: for the tests' broken twins. */
    protected final byte[] partialLargePayload(ShardId shard, int origin, long index) {
        ShardState st = shard(shard);
        return st == null || st.large == null ? null : st.large.partialPayload(origin, index);
    }

    private ShardState shard(ShardId id) {
        for (ShardState st : shards) if (st.subgroupName.equals(id.subgroup()) && st.shardIndex == id.index()) return st;
        return null;
    }

    // ---- the typed API (derecho.md §1.4: ordered_send, p2p_send) ----

    /**
     * Derecho's {@code ordered_send}: multicasts {@code payload} in shard {@code target}, which this
     * member must serve; every member of the shard that stays in the next view delivers it to its
     * {@link ShardReceiver#deliver} at the same place of the shard's total order. Call it on the
     * engine's thread (from a {@link ShardReceiver} upcall, or a timer of a role host). A send not yet
     * in the ring when this member moves to another shard of the subgroup is dropped (never delivered).
     *
     * @return null if queued, or why not (not a member of that shard now, payload too large, queue full)
     */
    public String orderedSend(ShardId target, byte[] payload) {
        if (target.subgroup().equals(GROUP)) return "messages of " + GROUP + " are client requests";
        if (phase != Phase.MEMBER) return self + " is " + phase;
        ShardState st = shard(target);
        if (st == null) return self + " does not serve shard " + target + " in view " + vid;
        if (payload.length > config.maxPayloadBytes()) return "payload of " + payload.length + " bytes exceeds the " + config.maxPayloadBytes() + "-byte slot";
        if (st.queue.size() >= config.maxQueuedSends()) return st.queue.size() + " messages wait for the send window";
        st.queue.add(new Outgoing(COMMAND, 0, ClientRequest.Session.NONE, payload));
        inputsChanged = true; // called from outside an event of this engine (a role host's timer, say)
        return null;
    }

    /**
     * Derecho's {@code p2p_send}: a read-only request to {@code member} about shard {@code target},
     * answered by its {@link ShardReceiver#query} into this member's {@link ShardReceiver#reply}; not
     * ordered with the shard's multicasts, and unanswered if the member does not serve the shard.
     *
     * @return the query's id, as passed to {@code reply}
     */
    public long p2pSend(NodeId member, ShardId target, byte[] request) {
        long id = ++queries;
        ctx.send(member, new VsyncMessage.P2pQuery(target.subgroup(), target.index(), id, request, io.tandem.engine.RequestIds.BACKGROUND));
        return id;
    }

    private void onP2pQuery(NodeId from, VsyncMessage.P2pQuery m) {
        ShardId target = new ShardId(m.subgroup(), m.shard());
        if (phase != Phase.MEMBER || shard(target) == null) return;
        byte[] answer = shardReceiver.query(target, from, m.payload());
        if (answer != null) ctx.send(from, new VsyncMessage.P2pReply(m.queryId(), answer, io.tandem.engine.RequestIds.BACKGROUND));
    }

    private void onP2pReply(NodeId from, VsyncMessage.P2pReply m) {
        shardReceiver.reply(m.queryId(), from, m.payload());
    }

    /** The layout of the current view. */
    public Layout layout() {
        return layout;
    }

    /** The shards this member serves in the current view. */
    public List<ShardId> myShards() {
        return shards.stream().map(ShardState::id).toList();
    }

    /** How often one of my shards changed (I left a subgroup's shard or moved to another) at a view change. */
    public long shardMoves() {
        return shardMoves;
    }

    // ---- the data path, per shard (derecho.md §3.2, §4.2, §4.3) ----

    private int send() {
        int work = 0;
        for (ShardState st : shards) {
            work += st.send();
            if (st.takeRowChanged()) dirty = true;
        }
        return work;
    }

    private int receive() {
        int work = 0;
        for (ShardState st : shards) {
            work += st.receive(wedged);
            if (st.takeRowChanged()) dirty = true;
            if (phase != Phase.MEMBER) return work;
        }
        return work;
    }

    /** How many positions of {@code shard}'s order are stable: held by every shard member. A broken twin in the tests answers otherwise. */
    protected long stableCount(ShardId shard) {
        return shard(shard).stableCount();
    }

    private int deliverStable() {
        int work = 0;
        for (ShardState st : shards) {
            work += st.deliverStable(stableCount(st.id()));
            if (st.takeRowChanged()) dirty = true;
        }
        return work;
    }

    private void deliverFrom(ShardState shard, NodeId sender, Held h) {
        if (wedged && !terminating && violation == null) violation = self + " delivered " + sender + " #" + h.index() + " of " + shard.name() + " in view " + vid + " after wedging";
        if (shard != group) {
            long position = RoundRobin.position(shard.members.size(), shard.members.indexOf(sender), h.index());
            long version = vid << 32 | position;
            if (durableServed.contains(shard.id())) deliverDurable(shard.id(), new VsyncMessage.HistoryEntry(version, sender, h.payload()));
            else shardReceiver.deliver(shard.id(), sender, version, h.payload());
            return;
        }
        deliveredNonNull++;
        if (h.kind() == READ) {
            if (sender.equals(self)) ctx.serveRead(h.requestId(), appliedIndex); // the read's place in the order: linearizable
            return;
        }
        appliedIndex++;
        ctx.deliver(new Committed(appliedIndex, sender, h.requestId(), h.session(), h.payload()));
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
            if (!inView(r) || (viewRows.get(r, row.suspected) & below) != below) return false;
        }
        return true;
    }

    private int lead() {
        if (trimEchoed) return tryInstall();
        // A trim that any row published or echoed is reused, never recomputed (derecho.md §5.6, V5).
        for (NodeId m : members) {
            if (!m.equals(self) && inView(m) && sst.get(m, row.trimReady) == 1) {
                if (!nextViewLogged(m, sst.get(m, row.trimLeader))) return 0;
                echoTrim(m);
                return 1;
            }
        }
        int work = propose();
        if (proposalAcked() && nextLayoutAdequate() && nextViewLogged(self, rank + 1)) {
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
            if (suspects(r) && !changes.contains(code) && !changes.contains(REJOIN | code)) changes.add(code);
        }
        for (NodeId j : pendingJoins) {
            long code = configured.indexOf(j) + 1L;
            if (!changes.contains(code) && changes.size() < 2 * config.maxMembers() && nextMembers(changes).size() < config.maxMembers()) changes.add(code);
        }
        if (inadequate != null) proposeRejoins(changes);
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

    /**
     * The adequacy rule (derecho.md §1.3): the leader publishes no trim, so nobody installs the next
     * view, while the layout function cannot fill every shard of it; the group stays wedged and the
     * proposal grows with the joins that come in meanwhile.
     */
    private boolean nextLayoutAdequate() {
        List<Long> changes = new ArrayList<>();
        for (int i = 0; i < sst.get(row.numChanges); i++) changes.add(sst.get(row.changes, i));
        LayoutResult next = layoutFunction.allocate(layout, nextMembers(changes));
        if (next instanceof LayoutResult.Inadequate i) {
            inadequate = i.reason();
            return false;
        }
        if (durableMode && next instanceof LayoutResult.Adequate a) {
            // derecho.md §5.10: a durable shard whose members all leave is refilled from a returning former
            // member's log (a SOURCE change); until one comes back with its log, the group waits.
            Map<ShardId, NodeId> sources = sourcesOf(changes);
            for (ShardId s : RestartPlanner.durableShards(layoutFunction, a.layout())) {
                if (!keepsAMember(s, a.layout()) && !sources.containsKey(s)) {
                    inadequate = "durable shard " + s + " keeps none of its members: waiting for a former member to rejoin with its log (derecho.md §5.10)";
                    return false;
                }
            }
        }
        inadequate = null;
        return true;
    }

    /**
     * The ragged trim of shard {@code shard} for its sender of shard rank {@code sender}: the minimum
     * over the shard's unsuspected members of what they hold (derecho.md §5.6); 0 if every member of
     * the shard is suspected (none of them stays to deliver anything, §5.10 in volatile mode). A
     * broken twin answers otherwise.
     */
    protected long trimFor(ShardId shard, int sender) {
        Shard s = layout.shard(shard.subgroup(), shard.index());
        VsyncRow.Block block = row.blocks.get(layoutFunction.subgroups().indexOf(shard.subgroup()));
        long min = Long.MAX_VALUE;
        for (NodeId m : s.members()) {
            if (suspects(members.indexOf(m))) continue;
            min = Math.min(min, sst.get(m, block.received, sender));
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    /**
     * The top-level leader computes the trim of every shard (the paper's rule, derecho.md §5.6: it sees
     * every row once all rows are pushed to everyone): in each subgroup's block, indexed by view rank
     * (shards of a subgroup are disjoint, so each view rank has one value per block).
     */
    private void publishTrim() {
        List<String> names = layoutFunction.subgroups();
        for (int g = 0; g < names.size(); g++) {
            VsyncRow.Block block = row.blocks.get(g);
            List<Shard> list = layout.subgroups().getOrDefault(names.get(g), List.of());
            for (int i = 0; i < list.size(); i++) {
                List<NodeId> sm = list.get(i).members();
                for (int s = 0; s < sm.size(); s++) sst.set(block.trim, members.indexOf(sm.get(s)), trimFor(new ShardId(names.get(g), i), s));
            }
        }
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
            if (!nextViewLogged(leader, sst.get(leader, row.trimLeader))) return 0;
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
        for (VsyncRow.Block block : row.blocks) for (int r = 0; r < members.size(); r++) sst.set(block.trim, r, sst.get(from, block.trim, r));
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
        // Each shard delivers in its round-robin order up to its trim, skipping what lies beyond a
        // sender's trim (the code's rule, derecho.md §5.6), and re-queues my own messages beyond it.
        Map<ShardId, long[]> done = new java.util.LinkedHashMap<>();
        List<List<Outgoing>> reissues = new ArrayList<>();
        terminating = true;
        for (ShardState st : shards) {
            long[] trim = new long[st.members.size()];
            for (int s = 0; s < trim.length; s++) trim[s] = sst.get(st.block.trim, members.indexOf(st.members.get(s)));
            if (!st.deliverTrimmed(trim)) {
                terminating = false;
                return 0;
            }
            reissues.add(st.beyondTrim(trim[st.rank]));
            // The group's shard is in completedViews already (vsync-same-view-same-set checks it); a raw
            // shard promises no common set or order (derecho.md §1.5), so it has no record to compare.
            if (st != group && !st.raw) done.put(st.id(), new long[] {st.deliveredInView(), st.prefixHash(st.deliveredInView())});
        }
        terminating = false;
        List<Long> changes = new ArrayList<>();
        for (int i = 0; i < sst.get(row.numChanges); i++) changes.add(sst.get(row.changes, i));
        List<NodeId> next = nextMembers(changes);
        java.util.Set<NodeId> rejoined = rejoinedBy(changes);
        Map<ShardId, NodeId> sources = sourcesOf(changes);
        completedViews.put(vid, new long[] {deliveredInView(), prefixHash(deliveredInView())});
        if (!done.isEmpty()) completedShardViews.put(vid, done);
        while (completedShardViews.size() > 64) completedShardViews.pollFirstEntry();
        long suspectedNodes = 0;
        for (int r = 0; r < n; r++) if (suspects(r) && !rejoined.contains(members.get(r))) suspectedNodes |= bitOfNode(members.get(r));
        List<NodeId> old = members;
        if (!next.contains(self)) {
            shutdown("removed from the group in view " + (vid + 1));
            return 1;
        }
        // My own messages the trim left out go again first in the next view, in order (derecho.md §5.7, V9).
        for (int k = 0; k < shards.size(); k++) {
            List<Outgoing> reissue = reissues.get(k);
            for (int i = reissue.size() - 1; i >= 0; i--) shards.get(k).queue.addFirst(reissue.get(i));
        }
        Layout nextLayout = switch (layoutFunction.allocate(layout, next)) {
            case LayoutResult.Adequate a -> a.layout();
            // The leader published the trim only for an adequate next view, and every member computes the same.
            case LayoutResult.Inadequate i -> throw new IllegalStateException("the next view is inadequate after the trim: " + i.reason());
        };
        if (!sources.isEmpty()) refills++;
        install(vid + 1, next, suspectedNodes, nextLayout, Arrival.CONTINUING, sources);
        // A rejoined seat's new process needs the state like any joiner.
        List<NodeId> joined = next.stream().filter(m -> !old.contains(m) || rejoined.contains(m)).toList();
        if (rank == 0 && !joined.isEmpty()) startTransfer(joined);
        return 1;
    }

    /** The next view: survivors in their order, then joiners in the order of the changes (derecho.md §5.5). */
    private List<NodeId> nextMembers(List<Long> changes) {
        List<NodeId> next = new ArrayList<>(members);
        for (long code : changes) {
            if ((code & SOURCE) != 0) continue;
            NodeId node = configured.get(nodeIndex(code));
            if ((code & REJOIN) != 0) {
                next.remove(node); // the seat's old process goes, its new one comes in as a joiner
                next.add(node);
            } else if (members.contains(node)) {
                next.remove(node);
            } else if (!next.contains(node)) {
                next.add(node);
            }
        }
        return next;
    }

    /** The configured index of the node a change names. */
    private static int nodeIndex(long code) {
        return (int) (code & 0xffff) - 1;
    }

    /** The seats a batch of changes takes a new process in for ({@link #REJOIN}). */
    private java.util.Set<NodeId> rejoinedBy(List<Long> changes) {
        java.util.Set<NodeId> out = new java.util.HashSet<>();
        for (long code : changes) if ((code & REJOIN) != 0 && (code & SOURCE) == 0) out.add(configured.get(nodeIndex(code)));
        return out;
    }

    /** The refill sources a batch of changes names ({@link #SOURCE}), by durable shard of the current layout. */
    private Map<ShardId, NodeId> sourcesOf(List<Long> changes) {
        if (!durableMode) return Map.of();
        List<ShardId> durable = durableOf(layout);
        Map<ShardId, NodeId> out = new java.util.LinkedHashMap<>();
        for (long code : changes) {
            if ((code & SOURCE) == 0) continue;
            int k = (int) ((code >>> 16) & 0xffffff);
            if (k < durable.size()) out.putIfAbsent(durable.get(k), configured.get(nodeIndex(code)));
        }
        return out;
    }

    /** Whether durable shard {@code s} keeps one of its unsuspected members in {@code next} (else it needs a refill, derecho.md §5.10). */
    private boolean keepsAMember(ShardId s, Layout next) {
        Shard before = layout.shard(s.subgroup(), s.index());
        Shard after = next.shard(s.subgroup(), s.index());
        if (before == null || after == null) return false;
        for (NodeId m : after.members()) {
            int r = members.indexOf(m);
            if (r >= 0 && before.members().contains(m) && !suspects(r)) return true;
        }
        return false;
    }

    /**
     * derecho.md §5.4, §5.10, while the next view is inadequate: take in the new processes of suspected
     * seats that asked to join ({@link #REJOIN}), and for each durable shard the next view would keep
     * none of the members of, name a returning former member whose log holds the shard's whole
     * history ({@link #SOURCE}), the longest such log. The proposal only grows (followers copy it
     * when its length changes), so each is appended once.
     */
    private void proposeRejoins(List<Long> changes) {
        for (NodeId j : rejoins.keySet()) {
            int r = members.indexOf(j);
            long code = REJOIN | (configured.indexOf(j) + 1L);
            if (r >= 0 && suspects(r) && !changes.contains(code) && changes.size() < 2 * config.maxMembers()) changes.add(code);
        }
        if (!durableMode) return;
        List<NodeId> next = nextMembers(changes);
        if (!(layoutFunction.allocate(layout, next) instanceof LayoutResult.Adequate a)) return;
        List<ShardId> durable = durableOf(layout);
        Map<ShardId, NodeId> named = sourcesOf(changes);
        java.util.Set<NodeId> rejoined = rejoinedBy(changes);
        for (ShardId s : durableOf(a.layout())) {
            int k = durable.indexOf(s);
            if (k < 0 || named.containsKey(s) || keepsAMember(s, a.layout())) continue;
            NodeId best = null;
            long bestVersion = -1;
            for (var e : rejoins.entrySet()) {
                if (!rejoined.contains(e.getKey()) || !canRefill(s, e.getKey(), e.getValue())) continue;
                long v = lastVersion(e.getValue(), s);
                if (v > bestVersion) {
                    best = e.getKey();
                    bestVersion = v;
                }
            }
            if (best != null && changes.size() < 2 * config.maxMembers()) changes.add(SOURCE | (long) k << 16 | (configured.indexOf(best) + 1L));
        }
    }

    /**
     * Whether {@code node}'s log, as its join request describes it, can refill durable shard {@code s}
     * (derecho.md §5.10): it holds the shard's whole history as a member of it in this view (its
     * newest logged view is this one or the next one it logged before echoing a trim). Every message
     * ever reported persisted in the shard was on disk at every member of it, so such a log has them
     * all, and what it has beyond was delivered in the shard's order and may be kept. Or: this view's
     * layout named it the refill source of {@code s} and it never came in (crashed while joining):
     * then no member of the shard held the history in this view (the others wait to copy it from the
     * source), so nothing new of it was made durable, and its log still has everything. A broken
     * twin in the tests answers otherwise (ShardRefillSimulationTest).
     */
    boolean canRefill(ShardId s, NodeId node, VsyncMessage.JoinRequest log) {
        if (!log.holds().contains(s)) return false;
        Shard now = layout.shard(s.subgroup(), s.index());
        if (log.logVid() >= vid && now != null && now.members().contains(node)) return true;
        return node.equals(viewSources.get(s));
    }

    private static long lastVersion(VsyncMessage.JoinRequest log, ShardId s) {
        int i = log.logShards().indexOf(s);
        return i < 0 ? 0 : log.lastVersions()[i];
    }

    private void flush() {
        flush(false);
    }

    /**
     * Pushes what the pass changed in my row. With {@code busyPass} (the pass did work, so another pass
     * follows at once: {@link #doWork} returns its work, on which the runtime and the simulator poll again),
     * a change of data counters only ({@code received}, {@code seq}, {@code delivered}, {@code persisted})
     * is left for a later push, at most {@link #MAX_DEFERRED_PUSHES} busy passes in a row: the next push
     * carries every word that differs from the last one pushed (ControlPush), so a burst of passes that
     * each moved a counter costs one write per peer instead of one per pass. At n members every pass that
     * moved a counter cost n − 1 frames, and the large-message benchmark's 64 KiB messages moved counters
     * in several passes per message at every member (session 16: frames per message growing as n(n − 1)).
     *
     * <p>Why it is safe: deferring changes when a counter reaches the peers, never its value nor the order
     * of writes on a link (each push still goes after the pass's slots and guard, R5). Every reader takes
     * these counters as lower bounds and minimums over members: stability (every member's {@code seq}),
     * the window (every member's {@code delivered}), a large sender's next transfer (every member's
     * {@code received}), the durable frontier ({@code persisted}); a stale counter only holds them back,
     * as a slow link does, so nothing is delivered, reused or reported persisted earlier than before. The
     * ragged trim (derecho.md §5.6) reads the {@code received} counts of wedged rows: a wedged member, or
     * one with its trim flag up, never defers, so the pass that wedges pushes the whole range (the wedged
     * word changed) with every deferred counter, before the flag (R4), and a wedged member's counters do
     * not move again; the trim is what it was. Liveness: a deferred change is pushed by the next pass
     * that does no work, by the fifth busy pass in a row, or by the heartbeat's whole-range push, and the
     * membership words (heartbeat, suspicions, the change protocol, the trim) are never deferred.
     */
    private void flush(boolean busyPass) {
        if (!dirty || phase != Phase.MEMBER) return;
        dirty = false;
        String step = leaderStep;
        leaderStep = null;
        if (step != null && stopAfterPublishing(step, vid)) {
            // Test hook: the leader's write reaches only its first follower, then the leader falls silent (a crash mid-push).
            List<NodeId> first = others().subList(0, Math.min(1, others().size()));
            sst.pushRange(row.vid, row.lastCounter, first);
            if (sst.get(row.trimReady) == 1) sst.push(row.trimReady, first);
            phase = Phase.SHUTDOWN;
            shutdownReason = "stopped by a test after publishing its " + step;
            sst.predicates().removeAll();
            ctx.requestPolling(false);
            return;
        }
        if (guardShard != null && guardShard.takeGuardPending()) {
            // This pass's send moved the guard after pushing its slots: the guard and the counters in one write (never deferred).
            controlPush.pushWithGuard(sst, others(), guardShard.block);
            deferredInARow = 0;
            pushFlags();
            return;
        }
        boolean mayDefer = busyPass && !wedged && deferredInARow < MAX_DEFERRED_PUSHES && sst.get(row.wedged) == 0 && sst.get(row.trimReady) == 0;
        if (!controlPush.push(sst, others(), mayDefer)) {
            dirty = true; // the next pass's flush pushes it
            deferredInARow++;
            return;
        }
        deferredInARow = 0;
        pushFlags();
    }

    /** The flags go in their own writes after the data they vouch for (R4/R5). */
    private void pushFlags() {
        if (sst.get(row.wedged) == 1) sst.push(row.wedged, others());
        if (sst.get(row.trimReady) == 1) sst.push(row.trimReady, others());
    }

    private List<NodeId> others() {
        return others;
    }

    private String trimString() {
        StringBuilder b = new StringBuilder("[");
        for (int g = 0; g < row.blocks.size(); g++) {
            for (int s = 0; s < members.size(); s++) b.append(g + s == 0 ? "" : ",").append(sst.get(row.blocks.get(g).trim, s));
        }
        return b.append("]").toString();
    }

    // ---- joins and state transfer (derecho.md §5.4, §5.7) ----

    private void startJoining() {
        phase = Phase.JOINING;
        incoming.reset();
        onJoinRetry();
    }

    private void onRejoin() {
        if (phase == Phase.SHUTDOWN) startJoining();
    }

    private void onJoinRetry() {
        if (phase != Phase.JOINING) return;
        VsyncMessage.JoinRequest request = durableMode ? joinRequest(report()) : new VsyncMessage.JoinRequest(nonce, io.tandem.engine.RequestIds.BACKGROUND);
        for (NodeId m : configured) if (!m.equals(self)) ctx.send(m, request);
        ctx.schedule(config.joinRetryNanos(), new JoinRetry());
        if (durableMode) restartRound();
    }

    /** derecho.md §5.4: the leader proposes a joiner; a request from a process whose seat is still in the view means the old one is gone. */
    private void onJoinRequest(NodeId from, VsyncMessage.JoinRequest m) {
        // Only a configured seat may join (it needs a bit in the suspicion mask); the transport vouches for who sent it.
        if (phase != Phase.MEMBER || !configured.contains(from)) return;
        int r = members.indexOf(from);
        if (r >= 0 && suspects(r)) {
            // The seat's old process is suspected and a new one asks to come in: if the next view cannot
            // be filled without it, the leader takes it in with the seat's removal (proposeRejoins).
            if (leaderRank() == rank) rejoins.put(from, m);
            return;
        }
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
            } else if (rank == 0 && transfer.retryDue(from, ctx.nowNanos(), config.joinRetryNanos())) {
                restartTransfer(); // it lost chunks: send the state again
            }
            return;
        }
        if (leaderRank() == rank && pendingJoins.add(from)) wedge();
    }

    /** Every shard's members, subgroup by subgroup (the layout sent to a joiner with the state). */
    private List<List<NodeId>> flatShards(Layout l) {
        List<List<NodeId>> out = new ArrayList<>();
        for (String name : layoutFunction.subgroups()) for (Shard s : l.subgroups().getOrDefault(name, List.of())) out.add(s.members());
        return out;
    }

    /** The layout a joiner gets with the state: the shards' members as sent, the modes from the layout function. */
    private Layout layoutFrom(List<NodeId> view, List<List<NodeId>> flat) {
        Layout shape = layoutFunction.allocate(Layout.EMPTY, view) instanceof LayoutResult.Adequate a ? a.layout() : Layout.EMPTY;
        Map<String, List<Shard>> subgroups = new java.util.LinkedHashMap<>();
        java.util.Set<NodeId> placed = new java.util.HashSet<>();
        int k = 0;
        for (String name : layoutFunction.subgroups()) {
            List<Shard> list = new ArrayList<>();
            for (int i = 0; i < layoutFunction.maxShards(name) && k < flat.size(); i++, k++) {
                Shard like = shape.shard(name, i);
                DeliveryMode mode = like == null ? DeliveryMode.ORDERED : like.mode();
                list.add(new Shard(flat.get(k), mode, List.of(), List.of()));
                placed.addAll(flat.get(k));
            }
            subgroups.put(name, list);
        }
        return new Layout(subgroups, view.stream().filter(m -> !placed.contains(m)).toList());
    }

    private void startTransfer(List<NodeId> joiners) {
        transfer.start(joiners, ctx.random().nextLong() & Long.MAX_VALUE | 1, ctx.nowNanos());
        // The snapshot holds everything delivered up to the end of the old view, and nothing of the new one yet:
        // nothing is delivered until the joiner's row shows the view.
        ctx.takeSnapshot(transfer.token());
    }

    private void restartTransfer() {
        SnapshotMeta snapshot = transfer.restart(ctx.nowNanos());
        if (snapshot != null) ctx.snapshots().readChunk(snapshot, 0, config.stateChunkBytes(), transfer.token());
    }

    private void onTransferSnapshotTaken(SnapshotMeta snapshot) {
        if (transfer.snapshotTaken(snapshot)) ctx.snapshots().readChunk(snapshot, 0, config.stateChunkBytes(), transfer.token());
    }

    private void onTransferChunkRead(StorageEvent.SnapshotChunkRead r) {
        if (!transfer.keepOnly(j -> members.contains(j) && !inView(j)) || phase != Phase.MEMBER) {
            transfer.readEnded();
            return;
        }
        List<ShardId> sourceShards = List.copyOf(viewSources.keySet());
        List<NodeId> sources = sourceShards.stream().map(viewSources::get).toList();
        for (NodeId j : transfer.joiners()) ctx.send(j, new VsyncMessage.StateChunk(vid, members, flatShards(layout), sourceShards, sources, r.snapshot(), r.offset(), r.data(), r.last(), io.tandem.engine.RequestIds.BACKGROUND));
        if (r.last()) transfer.readEnded();
        else ctx.snapshots().readChunk(r.snapshot(), r.offset() + r.data().length, config.stateChunkBytes(), transfer.token());
    }

    /** derecho.md §5.7: chunks of the state at the start of the view that takes me in, in order; the last installs the view. */
    private void onStateChunk(NodeId from, VsyncMessage.StateChunk c) {
        if (phase != Phase.JOINING || !c.members().contains(self)) return;
        java.util.OptionalLong token = incoming.offer(c, acceptsStateWhileInstalling());
        if (token.isPresent()) ctx.snapshots().writeChunk(c.snapshot(), c.offset(), c.data(), c.last(), token.getAsLong());
    }

    private void onStateInstalled(SnapshotMeta snapshot) {
        IncomingState.Installed in = incoming.installed();
        appliedIndex = snapshot.lastIncludedIndex();
        ctx.cancel(new JoinRetry());
        install(in.vid(), in.members(), 0L, layoutFrom(in.members(), in.shards()), Arrival.JOINED, in.sources());
        ctx.requestPolling(true);
        flush();
    }

    // ---- durable shards (derecho.md §4.6, §5.7) ----

    private List<ShardId> durableOf(Layout l) {
        return RestartPlanner.durableShards(layoutFunction, l);
    }

    /**
     * derecho.md §5.7/§5.9: the next view goes into the log before this member echoes (or, as leader,
     * publishes) the trim that leads to it. Then whenever a view is installed, a majority of the view
     * before has it on disk, so a restart that hears from a majority of the newest view it finds
     * always finds the last one. False until the record is durable (the trim waits).
     */
    private boolean nextViewLogged(NodeId from, long ballot) {
        if (!durableMode) return true;
        List<Long> changes = new ArrayList<>();
        for (int i = 0; i < sst.get(from, row.numChanges); i++) changes.add(sst.get(from, row.changes, i));
        List<NodeId> next = nextMembers(changes);
        if (!(layoutFunction.allocate(layout, next) instanceof LayoutResult.Adequate a)) return false;
        Map<ShardId, NodeId> sources = sourcesOf(changes);
        if (loggedNextVid != vid + 1 || !next.equals(loggedNextMembers) || ballot != loggedNextBallot || !sources.equals(loggedNextSources)) {
            loggedNextSources = sources;
            loggedNextIndex = store.append(new DurableRecord.View(vid + 1, ballot, next, flatShards(a.layout()), true, sources));
            loggedNextVid = vid + 1;
            loggedNextMembers = next;
            loggedNextBallot = ballot;
        }
        return ctx.log().durableIndex() >= loggedNextIndex;
    }

    /** At install: log the view (unless it was logged before the echo) and take up my standing in each durable shard I serve. */
    private void enterDurableShards(Arrival arrival, Map<ShardId, NodeId> sources) {
        if (arrival != Arrival.INITIAL) {
            boolean continuing = arrival == Arrival.CONTINUING;
            long ballot = continuing ? loggedNextBallot : 0;
            DurableRecord.View record = new DurableRecord.View(vid, ballot, members, flatShards(layout), continuing, sources);
            if (arrival == Arrival.JOINED) {
                // A joiner's log of a shard it is not the refill source of is no history to keep: it copies
                // the history of the shards it serves, and the log of a former member of a refilled shard
                // may run past the source's (messages delivered but never persisted everywhere, derecho.md
                // §5.10), which a later restart must not prefer to the shard's history (RestartPlanner).
                for (DurableShards.ShardLog sl : store.all()) {
                    if (sl.entries.isEmpty() || self.equals(sources.get(sl.id))) continue;
                    store.append(new DurableRecord.Reset(sl.id));
                    sl.reset();
                }
            }
            if (loggedNextVid != vid || arrival == Arrival.JOINED) {
                store.append(record);
                loggedNextVid = vid;
                loggedNextMembers = members;
                loggedNextBallot = ballot;
            }
            store.enterView(record, layout, this::durableOf);
        }
        List<ShardId> served = new ArrayList<>();
        List<ShardId> durable = durableOf(layout);
        for (ShardState st : shards) if (durable.contains(st.id())) served.add(st.id());
        durableServed = List.copyOf(served);
        sources.forEach((id, node) -> {
            if (!node.equals(self)) historySources.put(id, node);
        });
        for (ShardId id : durableServed) {
            DurableShards.ShardLog sl = store.of(id);
            if (!sl.complete) fetchHistory(id);
            // The restart or refill source: the shard's state from its own log (derecho.md §5.9, §5.10).
            else if (arrival == Arrival.RESTART || arrival == Arrival.JOINED && self.equals(sources.get(id))) replay(id, sl.entries, List.of());
        }
    }

    /** A message of a durable shard: logged and handed over, or held until the shard's history is here (derecho.md §5.7). */
    private void deliverDurable(ShardId id, VsyncMessage.HistoryEntry e) {
        DurableShards.ShardLog sl = store.of(id);
        if (!sl.complete) {
            sl.pending.add(e);
            return;
        }
        sl.add(store.append(new DurableRecord.Entry(id, e.version(), e.sender(), e.payload())), e);
        shardReceiver.deliver(id, e.sender(), e.version(), e.payload());
    }

    private void replay(ShardId id, List<VsyncMessage.HistoryEntry> history, List<VsyncMessage.HistoryEntry> pending) {
        shardReceiver.replayStarts(id);
        for (VsyncMessage.HistoryEntry e : history) shardReceiver.deliver(id, e.sender(), e.version(), e.payload());
        for (VsyncMessage.HistoryEntry e : pending) shardReceiver.deliver(id, e.sender(), e.version(), e.payload());
    }

    /** Asks the shard's other members (and a restart's source) for the history before my stint in it. */
    private void fetchHistory(ShardId id) {
        DurableShards.ShardLog sl = store.of(id);
        LinkedHashSet<NodeId> to = new LinkedHashSet<>(layout.shard(id.subgroup(), id.index()).members());
        NodeId source = historySources.get(id);
        if (source != null) to.add(source);
        to.remove(self);
        for (NodeId m : to) ctx.send(m, new VsyncMessage.HistoryFetch(id, sl.stintStart, io.tandem.engine.RequestIds.BACKGROUND));
    }

    /**
     * Answered by a member that holds the shard's history in a view at or after the asker's (it has
     * every message before that view), or by the restart source named for exactly that view.
     */
    private void onHistoryFetch(NodeId from, VsyncMessage.HistoryFetch m) {
        if (!durableMode) return;
        DurableShards.ShardLog sl = store.of(m.shard());
        boolean holds = phase == Phase.MEMBER && vid >= m.vid() && durableServed.contains(m.shard()) && sl.complete;
        boolean source = store.sourceVid(m.shard()) == m.vid();
        if (!holds && !source) return;
        ctx.send(from, new VsyncMessage.HistoryReply(m.shard(), m.vid(), sl.before(m.vid()), io.tandem.engine.RequestIds.BACKGROUND));
    }

    /** The history before my stint: logged after a reset, then what I delivered meanwhile; the receiver gets it all in order. */
    private void onHistoryReply(NodeId from, VsyncMessage.HistoryReply m) {
        if (phase != Phase.MEMBER || !durableServed.contains(m.shard())) return;
        ShardId id = m.shard();
        DurableShards.ShardLog sl = store.of(id);
        if (sl.complete || sl.stintStart != m.vid()) return;
        store.append(new DurableRecord.Reset(id));
        sl.reset();
        for (VsyncMessage.HistoryEntry e : m.entries()) sl.add(store.append(new DurableRecord.Entry(id, e.version(), e.sender(), e.payload())), e);
        sl.completeIndex = store.append(new DurableRecord.Complete(id, m.vid()));
        sl.complete = true;
        List<VsyncMessage.HistoryEntry> pending = List.copyOf(sl.pending);
        sl.pending.clear();
        for (VsyncMessage.HistoryEntry e : pending) sl.add(store.append(new DurableRecord.Entry(id, e.version(), e.sender(), e.payload())), e);
        historySources.remove(id);
        historiesCopied++;
        replay(id, m.entries(), pending);
    }

    /**
     * derecho.md §4.6: publish how far my log of each durable shard is on disk, and report to the
     * receiver the shard's persisted frontier (the minimum over its members) as it advances.
     */
    private int publishPersisted() {
        int work = 0;
        long durableIndex = ctx.log().durableIndex();
        store.refresh(durableIndex);
        for (ShardState st : shards) {
            if (!durableServed.contains(st.id())) continue;
            DurableShards.ShardLog sl = store.of(st.id());
            long column = sl.persistedColumn(durableIndex);
            if (column != sst.get(st.block.persisted)) {
                sst.set(st.block.persisted, column);
                dirty = true;
                work++;
            }
            if (!sl.complete) continue;
            long frontier = persistedFrontier(st.id());
            if (frontier > sl.signaled) {
                sl.signaled = frontier;
                shardReceiver.persisted(st.id(), frontier);
                work++;
            }
        }
        return work;
    }

    /**
     * The highest version of {@code shard} that every member of it has on disk (derecho.md §4.6, D5:
     * the minimum of the shard's {@code persisted} column; a member that does not hold the whole
     * history publishes 0 and holds it back), or −1. A broken twin in the tests answers otherwise.
     */
    protected long persistedFrontier(ShardId shard) {
        ShardState st = shard(shard);
        long[] columns = new long[st.members.size()];
        for (int i = 0; i < columns.length; i++) columns[i] = inView(st.members.get(i)) ? sst.get(st.members.get(i), st.block.persisted) : 0;
        return DurableShards.frontier(columns);
    }

    /** What my own row says I persisted of {@code shard} (for the tests' broken twins). */
    protected final long ownPersisted(ShardId shard) {
        return sst.get(shard(shard).block.persisted) - 1;
    }

    // ---- total-failure restart (derecho.md §5.9) ----

    /** The restart leader: the first configured member (Derecho's code has one by default; backups are an option not built here). */
    private NodeId restartLeader() {
        return configured.getFirst();
    }

    /** Every join retry while out of a view: report my log to the restart leader; as leader, move the restart on. */
    private void restartRound() {
        RestartPlanner.Report mine = report();
        if (self.equals(restartLeader())) asRestartLeader.report(mine);
        else ctx.send(restartLeader(), toMessage(mine));
        if (accepted != null && ctx.log().durableIndex() >= acceptedIndex) ctx.send(restartLeader(), new VsyncMessage.RestartAck(accepted.vid(), io.tandem.engine.RequestIds.BACKGROUND));
        if (self.equals(restartLeader())) leadRestart();
    }

    /** What my log holds: the newest view, the durable shards whose whole history I hold in it, the last version of each. */
    private RestartPlanner.Report report() {
        DurableRecord.View v = store.lastView();
        java.util.Set<ShardId> holds = new java.util.HashSet<>();
        Map<ShardId, Long> last = new java.util.HashMap<>();
        for (DurableShards.ShardLog sl : store.all()) {
            if (sl.serving && sl.complete) holds.add(sl.id);
            if (sl.lastVersion() > 0) last.put(sl.id, sl.lastVersion());
        }
        store.sources().forEach((id, at) -> {
            if (at == v.vid()) holds.add(id);
        });
        return new RestartPlanner.Report(self, v.vid(), v.ballot(), v.members(), v.shards(), holds, last);
    }

    private VsyncMessage.JoinRequest joinRequest(RestartPlanner.Report r) {
        List<ShardId> ids = new ArrayList<>(r.lastVersion().keySet());
        long[] versions = new long[ids.size()];
        for (int i = 0; i < versions.length; i++) versions[i] = r.lastVersion().get(ids.get(i));
        return new VsyncMessage.JoinRequest(nonce, r.vid(), List.copyOf(r.holds()), ids, versions, io.tandem.engine.RequestIds.BACKGROUND);
    }

    private VsyncMessage.RestartReport toMessage(RestartPlanner.Report r) {
        List<ShardId> ids = new ArrayList<>(r.lastVersion().keySet());
        long[] versions = new long[ids.size()];
        for (int i = 0; i < versions.length; i++) versions[i] = r.lastVersion().get(ids.get(i));
        return new VsyncMessage.RestartReport(r.vid(), r.ballot(), r.members(), r.shards(), List.copyOf(r.holds()), ids, versions, io.tandem.engine.RequestIds.BACKGROUND);
    }

    private void onRestartReport(NodeId from, VsyncMessage.RestartReport m) {
        if (!durableMode || !self.equals(restartLeader()) || !configured.contains(from)) return;
        if (phase == Phase.MEMBER) {
            // A member of the restart view I committed that missed the commit asks again.
            RestartPlanner.Decision committed = asRestartLeader.committed();
            if (committed != null && vid == committed.vid() && committed.members().contains(from)) {
                ctx.send(from, new VsyncMessage.RestartCommit(committed.vid(), io.tandem.engine.RequestIds.BACKGROUND));
            }
            return; // a live group: the reporter joins it
        }
        if (phase != Phase.JOINING) return;
        Map<ShardId, Long> last = new java.util.HashMap<>();
        for (int i = 0; i < m.logShards().size(); i++) last.put(m.logShards().get(i), m.lastVersions()[i]);
        asRestartLeader.report(new RestartPlanner.Report(from, m.vid(), m.ballot(), m.members(), m.shards(), new java.util.HashSet<>(m.holds()), last));
    }

    /** The restart leader's step ({@link RestartLeader}): send what it says. */
    private void leadRestart() {
        if (phase != Phase.JOINING) return;
        switch (asRestartLeader.step(this::decideRestart)) {
            case RestartLeader.Wait w -> {}
            case RestartLeader.Prepare p -> sendPrepare(p.decision());
            case RestartLeader.Commit c -> {
                VsyncMessage.RestartCommit commit = new VsyncMessage.RestartCommit(c.decision().vid(), io.tandem.engine.RequestIds.BACKGROUND);
                for (NodeId m : c.decision().members()) {
                    if (!m.equals(self)) ctx.send(m, commit);
                }
                onRestartCommit(self, commit);
            }
        }
    }

    /** The restart leader's decision from the reports; a broken twin in the tests decides otherwise. */
    protected RestartPlanner.Outcome decideRestart(java.util.Collection<RestartPlanner.Report> reports) {
        return RestartPlanner.decide(reports, configured, layoutFunction, this::layoutFrom);
    }

    private void sendPrepare(RestartPlanner.Decision d) {
        List<ShardId> ids = new ArrayList<>(d.sources().keySet());
        List<NodeId> nodes = ids.stream().map(d.sources()::get).toList();
        VsyncMessage.RestartPrepare p = new VsyncMessage.RestartPrepare(d.vid(), d.members(), flatShards(d.layout()), ids, nodes, io.tandem.engine.RequestIds.BACKGROUND);
        for (NodeId m : d.members()) {
            if (m.equals(self)) onRestartPrepare(self, p);
            else if (!asRestartLeader.acked(m)) ctx.send(m, p);
        }
    }

    /** First phase at a restarting member: log the restart view, then ack (once durable, on the next retry or at once). */
    private void onRestartPrepare(NodeId from, VsyncMessage.RestartPrepare m) {
        if (!durableMode || phase != Phase.JOINING || !from.equals(restartLeader()) || !m.members().contains(self)) return;
        if (accepted == null || accepted.vid() != m.vid() || !accepted.members().equals(m.members())) {
            Map<ShardId, NodeId> sources = new java.util.HashMap<>();
            for (int i = 0; i < m.sourceShards().size(); i++) sources.put(m.sourceShards().get(i), m.sources().get(i));
            accepted = m;
            acceptedIndex = store.append(new DurableRecord.View(m.vid(), 0, m.members(), m.shards(), false, sources));
            loggedNextVid = m.vid();
            loggedNextMembers = m.members();
            loggedNextBallot = 0;
        }
        if (ctx.log().durableIndex() >= acceptedIndex) {
            if (self.equals(restartLeader())) asRestartLeader.ack(self, m.vid());
            else ctx.send(from, new VsyncMessage.RestartAck(m.vid(), io.tandem.engine.RequestIds.BACKGROUND));
        }
    }

    private void onRestartAck(NodeId from, VsyncMessage.RestartAck m) {
        if (asRestartLeader.ack(from, m.vid())) leadRestart();
    }

    /** Second phase: every member of the restart view logged it; install it (derecho.md §5.9). */
    private void onRestartCommit(NodeId from, VsyncMessage.RestartCommit m) {
        if (phase != Phase.JOINING || accepted == null || accepted.vid() != m.vid() || !from.equals(restartLeader()) && !from.equals(self)) return;
        VsyncMessage.RestartPrepare p = accepted;
        accepted = null;
        Map<ShardId, NodeId> sources = new java.util.HashMap<>();
        for (int i = 0; i < p.sourceShards().size(); i++) sources.put(p.sourceShards().get(i), p.sources().get(i));
        restarts++;
        ctx.cancel(new JoinRetry());
        install(p.vid(), p.members(), 0L, layoutFrom(p.members(), p.shards()), Arrival.RESTART, sources);
        ctx.requestPolling(true);
        flush();
    }

    /** Restart views this member installed (derecho.md §5.9). */
    public long restarts() {
        return restarts;
    }

    /** Durable-shard histories this member copied from another (derecho.md §5.7). */
    public long historiesCopied() {
        return historiesCopied;
    }

    /** Views this member installed that refilled a durable shard from a former member's log (derecho.md §5.10). */
    public long refills() {
        return refills;
    }

    /** Why the next view cannot be installed yet (the layout function found it inadequate), or null. */
    public String inadequateReason() {
        return inadequate;
    }

    /** Why the restart leader is still waiting, or null. */
    public String restartWaiting() {
        return asRestartLeader.waiting();
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
        return incoming.copiesIgnored();
    }

    /** What {@code member}'s row says it holds of shard rank {@code sender} in {@code shard} (for the tests' broken twins). */
    protected final long receivedBy(NodeId member, ShardId shard, int sender) {
        return sst.get(member, row.blocks.get(layoutFunction.subgroups().indexOf(shard.subgroup())).received, sender);
    }

    /** My own received prefix in {@code shard}'s round-robin order (for the tests' broken twins). */
    protected final long ownSeq(ShardId shard) {
        return shard(shard).ownSeq();
    }

    /** The members of {@code shard} in the current layout (for the tests' broken twins). */
    protected final List<NodeId> shardMembers(ShardId shard) {
        return layout.shard(shard.subgroup(), shard.index()).members();
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
    long deliveredInView() {
        return group == null ? 0 : group.deliveredInView();
    }

    long prefixHash(long count) {
        return group == null ? vid : group.prefixHash(count);
    }

    /** For each view this member left: per shard it served, how many positions it delivered in it and the hash of the sequence. */
    java.util.NavigableMap<Long, Map<ShardId, long[]>> completedShardViews() {
        return completedShardViews;
    }

    /** The layouts of the last few views this member installed, by view id. */
    Map<Long, Layout> recentLayouts() {
        return layouts;
    }

    /** The fingerprints of {@link #recentLayouts}, by view id. */
    Map<Long, Long> recentLayoutPrints() {
        return layoutPrints;
    }

    /** The shards this member serves in the current view other than {@link #GROUP}'s (whose checks are the group's own). */
    List<ShardState> typedShards() {
        return typedShards;
    }

    /** My state of shard {@code index} of subgroup number {@code subgroup} in the current view, or null if I do not serve it. */
    ShardState servedShard(int subgroup, int index) {
        for (ShardState st : shards) if (st.subgroup == subgroup && st.shardIndex == index) return st;
        return null;
    }

    /** For each view this member left: how many positions it delivered in it and the hash of the sequence. */
    Map<Long, long[]> completedViews() {
        return completedViews;
    }

    /** A broken rule this member noticed about itself (delivery after wedge, a stable message it does not hold). */
    String violation() {
        if (violation != null) return violation;
        for (ShardState st : shards) if (st.violation() != null) return self + ": " + st.violation();
        return null;
    }

    public long deliveredMessages() {
        return deliveredNonNull;
    }
}


