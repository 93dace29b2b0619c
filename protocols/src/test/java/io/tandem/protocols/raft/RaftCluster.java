package io.tandem.protocols.raft;

import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.EngineContext;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.testing.TestMeters;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import java.util.zip.CRC32C;

/**
 * A small deterministic harness for Raft engines: virtual time, a seeded network (latency, loss,
 * duplication, partitions, slow nodes), in-memory storage with crash semantics (unsynced log
 * entries and meta writes are lost), an append-only state machine per node, and clients whose
 * history is checked. Safety is checked after every event: one leader per term, identical entries
 * applied at each index, leader completeness and monotonic commit indexes; {@link #checkHistory()}
 * checks linearizability of the append-only register.
 */
final class RaftCluster {
    static final long MS = 1_000_000L;

    private record Event(long at, long seq, Runnable action) {}

    /** A client operation and its outcome. */
    static final class Op {
        final long id;
        final NodeId node;
        final boolean write;
        final ReadPolicy policy;
        final long invokedAt;
        long completedAt = -1;
        /** Writes: the applied index; reads: the number of commands seen. -1 until answered. */
        long value = -1;
        Rejection rejection;

        Op(long id, NodeId node, boolean write, ReadPolicy policy, long invokedAt) {
            this.id = id;
            this.node = node;
            this.write = write;
            this.policy = policy;
            this.invokedAt = invokedAt;
        }

        boolean ok() {
            return completedAt >= 0 && rejection == null;
        }

        @Override
        public String toString() {
            return (write ? "write" : "read " + policy) + "#" + id + "@" + node + " [" + invokedAt / MS + "ms.." + (completedAt < 0 ? "?" : completedAt / MS + "ms")
                    + "] " + (rejection != null ? rejection : value);
        }
    }

    final long seed;
    final RaftConfig config;
    final List<NodeId> ids = new ArrayList<>();
    final Map<NodeId, Node> nodes = new TreeMap<>();
    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private final SplittableRandom random;
    private final KryoCodec codec;
    private long now;
    private long seq;
    private long nextOpId = 1;

    // Network and disk model.
    long latencyMin = 200_000, latencyMax = 2 * MS;
    long diskMin = 100_000, diskMax = MS;
    double lossRate;
    double duplicateRate;
    private final Set<String> blocked = new HashSet<>();
    final Map<NodeId, Long> slowNode = new HashMap<>();
    final Map<NodeId, Long> slowDisk = new HashMap<>();
    final Map<NodeId, Long> clockOffset = new HashMap<>();

    // Global observations for the invariants.
    private final Map<Long, NodeId> leaderOfTerm = new HashMap<>();
    private final TreeMap<Long, byte[]> appliedAt = new TreeMap<>();
    /** Index to {entry term, term of the node that first applied it}: roughly the term in which it was committed. */
    private final TreeMap<Long, long[]> committedTermAt = new TreeMap<>();
    final List<Op> history = new ArrayList<>();
    final List<String> violations = new ArrayList<>();
    long messagesSent;
    /** Sees every message as it is sent (before loss); tests use it to check what goes on the wire. */
    interface Observer {
        void sent(Node from, NodeId to, ProtocolMessage message);
    }

    Observer observer = (from, to, message) -> {};
    /** Drops the messages it accepts (after the observer saw them): targeted losses. */
    java.util.function.BiPredicate<NodeId, ProtocolMessage> dropIf = (to, message) -> false;
    /** Prints every message and storage event to stdout (debugging a seed). */
    boolean trace = Boolean.getBoolean("raft.trace");

    /** Pads each write's payload to this many bytes (for tests that measure memory); 0 keeps them short. */
    int payloadBytes;

    /** The deliberately broken engine the nodes run, or null for the correct one. */
    final BrokenRaft.Bug bug;

    RaftCluster(int n, RaftConfig config, long seed) {
        this(n, config, seed, null);
    }

    RaftCluster(int n, RaftConfig config, long seed, BrokenRaft.Bug bug) {
        this.bug = bug;
        this.seed = seed;
        this.config = config;
        this.random = new SplittableRandom(seed);
        var builder = KryoCodec.builder();
        new RaftProtocol(config).registerMessages(builder);
        this.codec = builder.build();
        for (int i = 1; i <= n; i++) ids.add(NodeId.of("n" + i));
        for (NodeId id : ids) nodes.put(id, new Node(id));
        for (Node node : nodes.values()) node.boot();
    }

    /** A config with short timeouts for the harness (election 150-300 ms, heartbeats every 30 ms). */
    static RaftConfig.Builder fastConfig() {
        return RaftConfig.builder()
                .electionTimeout(java.time.Duration.ofMillis(150), java.time.Duration.ofMillis(300))
                .heartbeatInterval(java.time.Duration.ofMillis(30))
                .resendInterval(java.time.Duration.ofMillis(60))
                .commitDeadline(java.time.Duration.ofMillis(200))
                .maxClockDrift(java.time.Duration.ofMillis(20))
                .detector(java.time.Duration.ofMillis(500), 64);
    }

    long now() {
        return now;
    }

    Node node(String id) {
        return nodes.get(NodeId.of(id));
    }

    RaftEngine engine(String id) {
        return node(id).engine;
    }

    private void at(long time, Runnable action) {
        queue.add(new Event(Math.max(time, now), seq++, action));
    }

    // ------------------------------------------------------------------------------------------
    // Running
    // ------------------------------------------------------------------------------------------

    void runFor(long nanos) {
        long end = now + nanos;
        while (!queue.isEmpty() && queue.peek().at <= end) step();
        now = Math.max(now, end);
    }

    boolean runUntil(BooleanSupplier condition, long maxNanos) {
        long end = now + maxNanos;
        while (!condition.getAsBoolean()) {
            if (queue.isEmpty() || queue.peek().at > end) {
                now = Math.max(now, end);
                return condition.getAsBoolean();
            }
            step();
        }
        return true;
    }

    /** A run needing more events than this is a message storm or a livelock. */
    long maxEvents = 3_000_000;
    long events;

    private void step() {
        if (++events > maxEvents) throw new AssertionError("more than " + maxEvents + " events: a message storm or a livelock\n" + describe());
        Event e = queue.poll();
        now = e.at;
        e.action.run();
        checkInvariants();
    }

    Optional<RaftEngine> leader() {
        RaftEngine best = null;
        for (Node n : nodes.values()) {
            if (n.up && n.engine.role() == RaftEngine.Role.LEADER && (best == null || n.engine.currentTerm() > best.currentTerm())) best = n.engine;
        }
        return Optional.ofNullable(best);
    }

    RaftEngine awaitLeader() {
        if (!runUntil(() -> leader().isPresent() && leader().get().termAt(leader().get().commitIndex()) == leader().get().currentTerm(), 20_000 * MS)) {
            throw new AssertionError("no leader within 20 s (seed " + seed + ")\n" + describe());
        }
        return leader().get();
    }

    // ------------------------------------------------------------------------------------------
    // Faults
    // ------------------------------------------------------------------------------------------

    private static String link(NodeId a, NodeId b) {
        return a.value() + ">" + b.value();
    }

    void isolate(String id) {
        NodeId n = NodeId.of(id);
        for (NodeId o : ids) {
            if (!o.equals(n)) {
                blocked.add(link(n, o));
                blocked.add(link(o, n));
            }
        }
    }

    /** Cuts every link between {@code side} and the rest. */
    void partition(Set<NodeId> side) {
        for (NodeId a : ids) {
            for (NodeId b : ids) {
                if (side.contains(a) != side.contains(b)) blocked.add(link(a, b));
            }
        }
    }

    void blockOneWay(String from, String to) {
        blocked.add(link(NodeId.of(from), NodeId.of(to)));
    }

    void heal() {
        blocked.clear();
        slowNode.clear();
        slowDisk.clear();
        lossRate = 0;
        duplicateRate = 0;
        for (Node n : nodes.values()) {
            if (n.pausedUntil > now) n.pausedUntil = now;
        }
    }

    void crash(String id) {
        node(id).crash();
    }

    void restart(String id) {
        node(id).restart();
    }

    void pause(String id, long nanos) {
        Node n = node(id);
        n.pausedUntil = Math.max(n.pausedUntil, now + nanos);
    }

    // ------------------------------------------------------------------------------------------
    // Clients
    // ------------------------------------------------------------------------------------------

    Op write(String node) {
        return write(NodeId.of(node));
    }

    Op write(NodeId node) {
        Op op = new Op(nextOpId++, node, true, null, now);
        history.add(op);
        String text = "w" + op.id;
        if (payloadBytes > text.length() + 1) text = text + " " + ".".repeat(payloadBytes - text.length() - 1);
        byte[] payload = text.getBytes(StandardCharsets.US_ASCII);
        submit(node, op, ClientRequest.command(op.id, new ClientRequest.Session(op.id, 1), payload));
        return op;
    }

    Op admin(String node, byte[] command) {
        Op op = new Op(nextOpId++, NodeId.of(node), true, null, now);
        submit(op.node, op, ClientRequest.command(op.id, ClientRequest.Session.NONE, command));
        return op;
    }

    Op read(String node, ReadPolicy policy) {
        return read(NodeId.of(node), policy);
    }

    Op read(NodeId node, ReadPolicy policy) {
        Op op = new Op(nextOpId++, node, false, policy, now);
        history.add(op);
        submit(node, op, ClientRequest.read(op.id, new byte[0], policy));
        return op;
    }

    private void submit(NodeId target, Op op, ClientRequest request) {
        Node n = nodes.get(target);
        at(now + latency(), () -> {
            if (!n.up) return; // the request is lost: the client never hears back
            n.pending.put(op.id, op);
            n.whenRunning(() -> n.engine.onClientRequest(request));
        });
    }

    boolean await(Op op, long maxNanos) {
        return runUntil(() -> op.completedAt >= 0, maxNanos);
    }

    /** Writes through whoever is leader until one is acknowledged. */
    Op writeCommitted() {
        for (int attempt = 0; attempt < 50; attempt++) {
            RaftEngine l = awaitLeader();
            Op op = write(l.self());
            if (await(op, 2_000 * MS) && op.ok()) return op;
        }
        throw new AssertionError("no write committed after 50 attempts (seed " + seed + ")\n" + describe());
    }

    // ------------------------------------------------------------------------------------------
    // Invariants and history
    // ------------------------------------------------------------------------------------------

    private void violation(String what) {
        if (violations.size() < 20) violations.add("t=" + now / MS + "ms: " + what);
    }

    private void checkInvariants() {
        for (Node n : nodes.values()) {
            if (!n.up) continue;
            RaftEngine e = n.engine;
            if (e.role() == RaftEngine.Role.LEADER) {
                NodeId previous = leaderOfTerm.putIfAbsent(e.currentTerm(), n.id);
                if (previous != null && !previous.equals(n.id)) violation("election safety: " + previous + " and " + n.id + " lead term " + e.currentTerm());
                if (previous == null) checkLeaderCompleteness(e);
            }
            if (e.commitIndex() < n.lastCommit) violation("commit index of " + n.id + " went back from " + n.lastCommit + " to " + e.commitIndex());
            n.lastCommit = e.commitIndex();
        }
    }

    /** Raft §5.4.3: a new leader holds every entry committed in an earlier term. */
    private void checkLeaderCompleteness(RaftEngine leader) {
        for (Map.Entry<Long, long[]> c : committedTermAt.entrySet()) {
            long index = c.getKey();
            if (index <= leader.baseIndex() || c.getValue()[1] >= leader.currentTerm()) continue;
            long term = leader.termAt(index);
            if (term != c.getValue()[0]) {
                violation("leader completeness: new leader " + leader.self() + " of term " + leader.currentTerm() + " has term " + term
                        + " at committed index " + index + " (entry term " + c.getValue()[0] + ", committed by term " + c.getValue()[1] + ")");
                return;
            }
        }
    }

    /** Raft §5.3 log matching over the nodes that are up: equal (index, term) implies equal prefixes. */
    void checkLogMatching() {
        List<RaftEngine> up = nodes.values().stream().filter(n -> n.up).map(n -> n.engine).toList();
        for (int i = 0; i < up.size(); i++) {
            for (int j = i + 1; j < up.size(); j++) {
                RaftEngine a = up.get(i), b = up.get(j);
                long from = Math.max(a.firstIndex(), b.firstIndex());
                long to = Math.min(a.lastIndex(), b.lastIndex());
                boolean matching = false;
                for (long k = to; k >= from; k--) {
                    boolean same = a.termAt(k) == b.termAt(k);
                    if (same && !matching) matching = true;
                    if (matching && (!same || !Arrays.equals(a.payloadAt(k), b.payloadAt(k)))) {
                        violation("log matching: " + a.self() + " and " + b.self() + " differ at " + k + " below a matching entry");
                        break;
                    }
                }
            }
        }
    }

    /**
     * Linearizability of the append-only register: writes take effect in applied order, reads
     * return how many writes are applied. Checks real-time order of writes, that each read sits
     * between the writes it saw and did not see, that reads are monotonic in real time, and that
     * acknowledged writes are applied and rejected ones are not.
     */
    List<String> checkHistory() {
        List<String> problems = new ArrayList<>();
        Map<Long, Long> rank = new HashMap<>();
        long r = 0;
        for (byte[] payload : appliedAt.values()) {
            if (payload == null) continue;
            r++;
            String s = new String(payload, StandardCharsets.US_ASCII);
            if (s.startsWith("w")) rank.put(Long.parseLong(s.substring(1).split(" ", 2)[0]), r);
        }
        Map<Long, Op> writeByRank = new HashMap<>();
        for (Op op : history) {
            if (!op.write) continue;
            Long k = rank.get(op.id);
            if (k != null) writeByRank.put(k, op);
            if (op.ok() && k == null) problems.add("acknowledged write never applied: " + op);
            if (op.rejection != null && k != null) problems.add("rejected write was applied at rank " + k + ": " + op);
            if (op.ok() && k != null && op.value <= 0) problems.add("write acknowledged without an index: " + op);
        }
        List<Op> writes = history.stream().filter(o -> o.write && o.ok() && rank.containsKey(o.id)).toList();
        for (Op a : writes) {
            for (Op b : writes) {
                if (a.completedAt < b.invokedAt && rank.get(a.id) >= rank.get(b.id)) {
                    problems.add("write order: " + a + " finished before " + b + " started but applied after it");
                }
            }
        }
        List<Op> reads = history.stream().filter(o -> !o.write && o.ok() && !(o.policy instanceof ReadPolicy.Stale)).toList();
        for (Op read : reads) {
            long seen = read.value;
            Op next = writeByRank.get(seen + 1);
            if (next != null && next.ok() && next.completedAt < read.invokedAt) problems.add("stale read: " + read + " missed " + next);
            Op last = writeByRank.get(seen);
            if (seen > 0 && last != null && last.invokedAt > read.completedAt) problems.add("read from the future: " + read + " saw " + last);
            if (seen > rank.size()) problems.add("read saw more writes than were ever applied: " + read);
        }
        for (Op a : reads) {
            for (Op b : reads) {
                if (a.completedAt < b.invokedAt && a.value > b.value) problems.add("reads went back in time: " + a + " then " + b);
            }
        }
        return problems;
    }

    private static String brief(ProtocolMessage m) {
        if (m instanceof RaftMessage.AppendEntries a) {
            return "AppendEntries(t" + a.term() + " prev=" + a.prevLogIndex() + "@" + a.prevLogTerm() + " n=" + a.entries().size() + " commit=" + a.leaderCommit() + ")";
        }
        if (m instanceof RaftMessage.InstallSnapshot i) {
            return "InstallSnapshot(t" + i.term() + " idx=" + i.snapshot().lastIncludedIndex() + " off=" + i.offset() + " len=" + i.data().length + " last=" + i.last() + ")";
        }
        return m.toString();
    }

    String describe() {
        StringBuilder s = new StringBuilder("t=" + now / MS + "ms seed=" + seed + "\n");
        for (Node n : nodes.values()) s.append("  ").append(n.up ? n.engine.inspect() : n.id + " DOWN").append('\n');
        return s.toString();
    }

    long warnings(String kind) {
        long total = 0;
        for (Node n : nodes.values()) total += n.allWarnings.stream().filter(w -> w.kind().equals(kind)).count() + n.meters.warnings(kind);
        return total;
    }

    long totalWarnings() {
        long total = 0;
        for (Node n : nodes.values()) total += n.allWarnings.size() + n.meters.warnings.size();
        return total;
    }

    private long latency() {
        return latencyMin + random.nextLong(latencyMax - latencyMin + 1);
    }

    private long diskLatency(NodeId node) {
        return diskMin + random.nextLong(diskMax - diskMin + 1) + slowDisk.getOrDefault(node, 0L);
    }

    private void observeApplied(NodeId node, long index, long term, byte[] payload) {
        if (appliedAt.containsKey(index)) {
            if (!Arrays.equals(appliedAt.get(index), payload)) violation("state machine safety: " + node + " applied a different command at " + index);
        } else {
            appliedAt.put(index, payload);
            // The first node to apply an index learned of its commit no later than in its current term.
            if (term > 0) committedTermAt.put(index, new long[] {term, nodes.get(node).engine.currentTerm()});
        }
    }

    // ------------------------------------------------------------------------------------------
    // A node: engine context, storage with crash semantics, execution
    // ------------------------------------------------------------------------------------------

    final class Node implements EngineContext {
        final NodeId id;
        RaftEngine engine;
        boolean up = true;
        int incarnation;
        long pausedUntil;
        long lastCommit;
        TestMeters meters = new TestMeters();
        final List<TestMeters.Warning> allWarnings = new ArrayList<>();
        RandomGenerator rng;
        final Map<TimerKey, Long> timers = new HashMap<>();
        long timerGeneration;
        final Map<Long, Op> pending = new HashMap<>();

        // Storage.
        final MemLog log = new MemLog();
        final Map<String, byte[]> meta = new HashMap<>();
        final Map<String, byte[]> durableMeta = new HashMap<>();
        long metaSyncAt;
        Stored snapshot;
        Stored receiving;
        long snapshotsTaken;

        // Execution: the state machine is the list of applied commands.
        final List<byte[]> state = new ArrayList<>();
        long applied;
        final List<Runnable> execution = new ArrayList<>();
        boolean executionScheduled;
        final TreeMap<Long, List<Long>> waitingReads = new TreeMap<>();

        Node(NodeId id) {
            this.id = id;
        }

        /** Views the engine installed, over all incarnations (ids grow within one). */
        final List<io.tandem.engine.GroupView> views = new ArrayList<>();
        io.tandem.engine.GroupView view;

        @Override
        public void installView(io.tandem.engine.GroupView next) {
            if (view != null && next.id() <= view.id()) return;
            view = next;
            views.add(next);
        }

        @Override
        public io.tandem.engine.GroupView view() {
            return view != null ? view : new io.tandem.engine.GroupView(1, ids);
        }

        @Override
        public io.tandem.engine.Regions regions() {
            throw new UnsupportedOperationException("the Raft test cluster has no memory regions (Raft uses none)");
        }

        @Override
        public void requestPolling(boolean poll) {
            throw new UnsupportedOperationException("the Raft test cluster does not poll (Raft never asks)");
        }

        void boot() {
            rng = new SplittableRandom(seed * 31 + id.hashCode() * 17L + incarnation);
            view = null; // a new process starts from its first view again
            engine = bug == null ? new RaftEngine(id, ids, config) : BrokenRaft.engine(bug, id, ids, config);
            whenRunning(() -> engine.start(this));
        }

        /** Runs {@code action} now, or when a pause ends; drops it if the node crashed meanwhile. */
        void whenRunning(Runnable action) {
            int inc = incarnation;
            if (pausedUntil > now) {
                at(pausedUntil, () -> {
                    if (up && incarnation == inc) whenRunning(action);
                });
                return;
            }
            if (up && incarnation == inc) action.run();
        }

        void crash() {
            if (!up) return;
            up = false;
            incarnation++;
            allWarnings.addAll(meters.warnings);
            timers.clear();
            log.crash();
            meta.clear();
            meta.putAll(durableMeta);
            receiving = null;
            execution.clear();
            executionScheduled = false;
            waitingReads.clear();
            pending.clear(); // their clients never hear back: the outcome stays unknown
        }

        void restart() {
            if (up) return;
            up = true;
            lastCommit = 0; // the commit index is volatile (Raft Figure 2): it restarts from the snapshot
            meters = new TestMeters();
            state.clear();
            applied = 0;
            if (snapshot != null) {
                restoreState(snapshot.data);
            }
            pausedUntil = 0;
            boot();
        }

        // EngineContext

        @Override
        public NodeId self() {
            return id;
        }

        @Override
        public List<NodeId> members() {
            return ids;
        }

        @Override
        public long nowNanos() {
            return now + clockOffset.getOrDefault(id, 0L);
        }

        @Override
        public RandomGenerator random() {
            return rng;
        }

        @Override
        public void send(NodeId to, ProtocolMessage message) {
            messagesSent++;
            observer.sent(this, to, message);
            if (trace && !(message instanceof RaftMessage.Heartbeat) && !(message instanceof RaftMessage.HeartbeatResponse)) {
                System.out.println(now / 1000 + "us " + id + " -> " + to + " " + brief(message));
            }
            if (!ids.contains(to) || blocked.contains(link(id, to)) || random.nextDouble() < lossRate || dropIf.test(to, message)) return;
            ProtocolMessage wire = (ProtocolMessage) codec.decode(codec.encode(message));
            int copies = random.nextDouble() < duplicateRate ? 2 : 1;
            for (int c = 0; c < copies; c++) {
                long delay = latency() + slowNode.getOrDefault(id, 0L) + slowNode.getOrDefault(to, 0L);
                Node target = nodes.get(to);
                at(now + delay, () -> {
                    if (target.up && !blocked.contains(link(id, to))) target.whenRunning(() -> target.engine.onMessage(id, wire));
                });
            }
        }

        @Override
        public TimerKey schedule(long delayNanos, TimerKey key) {
            long generation = ++timerGeneration;
            timers.put(key, generation);
            int inc = incarnation;
            at(now + Math.max(0, delayNanos), () -> {
                if (!up || incarnation != inc || !Long.valueOf(generation).equals(timers.get(key))) return;
                timers.remove(key);
                whenRunning(() -> engine.onTimer(key));
            });
            return key;
        }

        @Override
        public void cancel(TimerKey key) {
            timers.remove(key);
        }

        @Override
        public DurableLog log() {
            return log;
        }

        @Override
        public MetaStore meta() {
            return metaStore;
        }

        @Override
        public SnapshotStore snapshots() {
            return snapshotStore;
        }

        @Override
        public void deliver(Committed entry) {
            long term = log.termOf(entry.index());
            execute(() -> {
                if (entry.index() <= applied) return;
                if (entry.index() != applied + 1) {
                    violation(id + " was delivered index " + entry.index() + " after " + applied);
                    return;
                }
                applied = entry.index();
                if (!entry.isNoop()) state.add(entry.command());
                observeApplied(id, entry.index(), term, entry.command());
                if (id.equals(entry.origin())) {
                    Op op = pending.remove(entry.requestId());
                    if (op != null) complete(op, entry.index(), null);
                }
            });
        }

        @Override
        public void serveRead(long requestId, long afterIndex) {
            execute(() -> {
                if (afterIndex <= applied) answerRead(requestId);
                else waitingReads.computeIfAbsent(afterIndex, k -> new ArrayList<>()).add(requestId);
            });
        }

        private void answerRead(long requestId) {
            Op op = pending.remove(requestId);
            if (op != null) complete(op, state.size(), null);
        }

        @Override
        public void complete(long requestId, byte[] result) {
            // Raft answers every request through execution or a rejection; a result from elsewhere would be a bug.
            violation(id + " completed request " + requestId + " with a result that did not come from its own execution");
        }

        @Override
        public void reject(long requestId, Rejection reason) {
            Op op = pending.remove(requestId);
            if (op != null) complete(op, -1, reason);
        }

        private void complete(Op op, long value, Rejection rejection) {
            long when = now + latency(); // the answer travels back to the client
            op.value = value;
            op.rejection = rejection;
            op.completedAt = when;
        }

        @Override
        public void takeSnapshot(long token) {
            execute(() -> {
                long index = applied;
                byte[] data = encodeState();
                long term = log.termOf(index);
                int inc = incarnation;
                at(now + diskLatency(id), () -> {
                    if (!up || incarnation != inc) return;
                    CRC32C crc = new CRC32C();
                    crc.update(data);
                    SnapshotMeta m = new SnapshotMeta(index, term, data.length, (int) crc.getValue(), new byte[0]);
                    snapshot = new Stored(m, data);
                    snapshotsTaken++;
                    whenRunning(() -> engine.onStorageEvent(new StorageEvent.SnapshotTaken(m, token)));
                });
            });
        }

        @Override
        public Meters meters() {
            return meters;
        }

        /** Execution runs after the engine handler returns, like the runtime's execution thread. */
        private void execute(Runnable task) {
            execution.add(task);
            if (executionScheduled) return;
            executionScheduled = true;
            int inc = incarnation;
            at(now, () -> {
                if (!up || incarnation != inc) return;
                executionScheduled = false;
                List<Runnable> tasks = new ArrayList<>(execution);
                execution.clear();
                long before = applied;
                for (Runnable t : tasks) t.run();
                while (!waitingReads.isEmpty() && waitingReads.firstKey() <= applied) {
                    for (long r : waitingReads.pollFirstEntry().getValue()) answerRead(r);
                }
                if (applied != before) whenRunning(() -> engine.onApplied(applied));
            });
        }

        byte[] encodeState() {
            var bytes = new ByteArrayOutputStream();
            try (var out = new DataOutputStream(bytes)) {
                out.writeLong(applied);
                out.writeInt(state.size());
                for (byte[] c : state) {
                    out.writeInt(c.length);
                    out.write(c);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        void restoreState(byte[] data) {
            try (var in = new DataInputStream(new java.io.ByteArrayInputStream(data))) {
                long index = in.readLong();
                int n = in.readInt();
                state.clear();
                for (int i = 0; i < n; i++) {
                    byte[] c = new byte[in.readInt()];
                    in.readFully(c);
                    state.add(c);
                }
                applied = index;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        final MetaStore metaStore = new MetaStore() {
            @Override
            public Optional<byte[]> get(String key) {
                return Optional.ofNullable(meta.get(key));
            }

            @Override
            public void put(String key, byte[] value, long token) {
                meta.put(key, value);
                metaSyncAt = Math.max(metaSyncAt, now + diskLatency(id)); // meta writes complete in order
                int inc = incarnation;
                at(metaSyncAt, () -> {
                    if (!up || incarnation != inc) return;
                    durableMeta.put(key, value);
                    whenRunning(() -> engine.onStorageEvent(new StorageEvent.MetaSaved(key, token)));
                });
            }
        };

        final SnapshotStore snapshotStore = new SnapshotStore() {
            @Override
            public Optional<SnapshotMeta> latest() {
                return Optional.ofNullable(snapshot).map(Stored::meta);
            }

            @Override
            public void readChunk(SnapshotMeta m, long offset, int maxBytes, long token) {
                int inc = incarnation;
                at(now + diskLatency(id), () -> {
                    if (!up || incarnation != inc) return;
                    if (snapshot == null || !RaftEngine.sameSnapshot(snapshot.meta, m)) {
                        whenRunning(() -> engine.onStorageEvent(new StorageEvent.SnapshotFailed(m, "snapshot " + m.lastIncludedIndex() + " is gone", token)));
                        return;
                    }
                    int from = (int) offset;
                    int to = (int) Math.min(snapshot.data.length, offset + maxBytes);
                    byte[] data = Arrays.copyOfRange(snapshot.data, from, to);
                    boolean last = to == snapshot.data.length;
                    whenRunning(() -> engine.onStorageEvent(new StorageEvent.SnapshotChunkRead(m, offset, data, last, token)));
                });
            }

            @Override
            public void writeChunk(SnapshotMeta m, long offset, byte[] data, boolean last, long token) {
                if (offset == 0) receiving = new Stored(m, new byte[0]);
                if (receiving == null || !RaftEngine.sameSnapshot(receiving.meta, m) || receiving.data.length != offset) {
                    violation(id + " wrote snapshot chunk at " + offset + " out of order");
                    int inc = incarnation;
                    at(now + diskLatency(id), () -> {
                        if (up && incarnation == inc) whenRunning(() -> engine.onStorageEvent(new StorageEvent.SnapshotFailed(m, "chunk out of order", token)));
                    });
                    return;
                }
                byte[] grown = Arrays.copyOf(receiving.data, receiving.data.length + data.length);
                System.arraycopy(data, 0, grown, (int) offset, data.length);
                receiving = new Stored(m, grown);
                int inc = incarnation;
                at(now + diskLatency(id), () -> {
                    if (!up || incarnation != inc) return;
                    whenRunning(() -> engine.onStorageEvent(new StorageEvent.SnapshotChunkWritten(m, offset, last, token)));
                    if (!last) return;
                    Stored complete = receiving;
                    receiving = null;
                    CRC32C crc = new CRC32C();
                    crc.update(complete.data);
                    if ((int) crc.getValue() != m.crc32c()) {
                        whenRunning(() -> engine.onStorageEvent(new StorageEvent.SnapshotFailed(m, "bad checksum", token)));
                        return;
                    }
                    snapshot = complete;
                    execution.clear();
                    waitingReads.clear();
                    restoreState(complete.data);
                    whenRunning(() -> engine.onStorageEvent(new StorageEvent.SnapshotInstalled(m, token)));
                });
            }
        };

        /** The log: appends are durable after a disk flush; a crash keeps only the durable prefix. */
        final class MemLog implements DurableLog {
            long first = 1;
            final ArrayList<LogEntry> entries = new ArrayList<>();
            /** Compacted entries whose space is not reclaimed yet: a restart may find them again, like whole log segments. */
            final ArrayList<LogEntry> reclaimable = new ArrayList<>();
            long durable;
            boolean syncScheduled;

            long termOf(long index) {
                return index >= first && index <= lastIndex() ? entry(index).term() : (index == 0 ? 0 : -1);
            }

            @Override
            public long firstIndex() {
                return first;
            }

            @Override
            public long lastIndex() {
                return first + entries.size() - 1;
            }

            @Override
            public long durableIndex() {
                return durable;
            }

            @Override
            public LogEntry entry(long index) {
                if (index < first || index > lastIndex()) throw new IndexOutOfBoundsException(index + " not in [" + first + "," + lastIndex() + "]");
                return entries.get((int) (index - first));
            }

            @Override
            public void append(LogEntry entry) {
                if (entry.index() != lastIndex() + 1) throw new IllegalArgumentException("append " + entry.index() + " after " + lastIndex());
                entries.add(entry);
                scheduleSync();
            }

            @Override
            public void truncateSuffix(long fromIndex) {
                while (lastIndex() >= fromIndex && !entries.isEmpty()) entries.removeLast();
                durable = Math.min(durable, fromIndex - 1);
            }

            @Override
            public void compactPrefix(long upToIndex) {
                while (first <= upToIndex && !entries.isEmpty()) {
                    LogEntry dropped = entries.removeFirst();
                    if (dropped.index() <= durable) reclaimable.add(dropped);
                    first++;
                }
                first = Math.max(first, upToIndex + 1);
                while (reclaimable.size() > 30) reclaimable.removeFirst();
            }

            @Override
            public void resetAfter(long lastIncludedIndex) {
                reclaimable.clear();
                entries.clear();
                first = lastIncludedIndex + 1;
                durable = lastIncludedIndex;
            }

            private void scheduleSync() {
                if (syncScheduled) return;
                syncScheduled = true;
                int inc = incarnation;
                at(now + diskLatency(id), () -> {
                    if (!up || incarnation != inc) return;
                    syncScheduled = false;
                    durable = lastIndex();
                    long d = durable;
                    whenRunning(() -> engine.onStorageEvent(new StorageEvent.LogSynced(d)));
                });
            }

            void crash() {
                syncScheduled = false;
                while (lastIndex() > Math.max(durable, first - 1) && !entries.isEmpty()) entries.removeLast();
                // Space is reclaimed in whole segments: some compacted entries may still be there.
                if (!reclaimable.isEmpty() && random.nextBoolean() && !entries.isEmpty() && reclaimable.getLast().index() == first - 1) {
                    int back = 1 + random.nextInt(reclaimable.size());
                    for (int i = 0; i < back; i++) {
                        LogEntry e = reclaimable.removeLast();
                        entries.addFirst(e);
                        first = e.index();
                    }
                }
                reclaimable.clear();
            }
        }
    }

    record Stored(SnapshotMeta meta, byte[] data) {}
}
