package io.tandem.kv.shard;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.ShardGroup;
import io.tandem.engine.ShardListener;
import io.tandem.engine.TimerKey;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.SessionTable;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvException;
import io.tandem.kv.KvLimits;
import io.tandem.kv.KvQuery;
import io.tandem.kv.KvResult;
import io.tandem.kv.KvStateMachine;
import io.tandem.storage.StorageEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One member of the KV store sharded over a group's shards (issue 23, derecho.md §1.3, §1.4, §4.6):
 * a thin adapter around the member's {@link ShardGroup} (a durable shard layout named
 * {@value #SUBGROUP} of {@code shards} shards; virtual synchrony's subgroups are the protocol that
 * gives one, but nothing here names it). The adapter is the group's {@link ShardListener} and holds
 * one {@link KvStateMachine} (with its session table) per shard this member serves.
 *
 * <ul>
 *   <li><b>Routing.</b> A request's key picks its shard ({@link KeyShards#shardOf}); a member that
 *       does not serve that shard redirects the client to the shard's members.</li>
 *   <li><b>Linearizable within a shard.</b> Commands <em>and reads</em> go through the shard's
 *       ordered multicast ({@code ordered_send}); every member of the shard applies them in the
 *       shard's one total order, and the member that sent one answers its client from its own
 *       application at that position. Reads are not served from local state, because a member
 *       cut off from its shard could still be serving a stale view's state.</li>
 *   <li><b>Nothing acknowledged is lost.</b> The answer waits until the shard's persistence
 *       frontier covers the message ({@link ShardListener#persisted}: on disk at every member of
 *       the shard), so a total failure and restart (derecho.md §5.9) keeps every answered write
 *       and never un-does a value a read returned.</li>
 *   <li><b>State transfer</b> is the durable shard's history copy (derecho.md §5.7): a member new
 *       to a shard hears {@link ShardListener#replayStarts} and then the shard's whole history,
 *       which rebuilds the tree and the session table.</li>
 *   <li><b>Exactly once.</b> Sessions are decided per shard, in the shard's order, from the request's
 *       (client, sequence) carried in the message, so every member keeps the same table and a retry
 *       that reaches another member of the shard gets the cached result.</li>
 * </ul>
 *
 * Deterministic and free of I/O like every engine: the state machines live on the engine's loop.
 */
public final class ShardedKvEngine implements Engine, ShardListener {
    /** The layout's subgroup of KV shards. */
    public static final String SUBGROUP = "kv";

    private final NodeId self;
    private final int shards;
    private final KvLimits limits;
    private final int maxPayloadBytes;
    private final ExecutorFactory.Limits sessionLimits;
    private final Consumer<ShardMap> onShardMap;
    private final KvCodec codec;
    private final ShardGroup group;
    private EngineContext ctx;
    private long incarnation;

    /** One shard's replicated state at this member. */
    private final class ShardData {
        final KvStateMachine machine = new KvStateMachine(limits, io.tandem.kv.btree.BPlusTree.DEFAULT_ORDER);
        final SessionTable sessions = new SessionTable(sessionLimits.maxSessions(), sessionLimits.maxPerSession());
        /** My requests applied here, by version, waiting for the persistence frontier. */
        final TreeMap<Long, long[]> waitingIds = new TreeMap<>();
        final Map<Long, byte[]> waitingResults = new HashMap<>();
        long persisted = -1;
        long applied;
    }

    private final Map<Integer, ShardData> data = new HashMap<>();
    /** Requests handed to a shard's ordered send and not yet delivered: request id to shard index. */
    private final Map<Long, Integer> sent = new HashMap<>();
    private long malformed;
    private long redirected;

    /**
     * @param onShardMap told the layout of every installed view (on the engine's loop), for the
     *                   server's status; may be a no-op
     */
    ShardedKvEngine(NodeId self, ShardGroup group, int shards, KvLimits limits, ExecutorFactory.Limits sessionLimits, Consumer<ShardMap> onShardMap) {
        this.self = self;
        this.group = group;
        this.shards = shards;
        this.limits = limits;
        this.maxPayloadBytes = group.maxPayloadBytes();
        this.sessionLimits = sessionLimits;
        this.onShardMap = onShardMap;
        this.codec = new KvCodec(limits);
    }

    // ---- Engine: everything but client requests goes to the group's engine ----

    @Override
    public void start(EngineContext context) {
        ctx = context;
        incarnation = ctx.random().nextLong();
        group.start(context);
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        group.onMessage(from, message);
        failIfStopped();
    }

    @Override
    public void onTimer(TimerKey key) {
        group.onTimer(key);
        failIfStopped();
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        group.onStorageEvent(event);
        failIfStopped();
    }

    @Override
    public int doWork() {
        int work = group.doWork();
        failIfStopped();
        return work;
    }

    @Override
    public boolean onAdmin(long requestId, AdminRequest request) {
        return group.onAdmin(requestId, request);
    }

    @Override
    public EngineStatus status() {
        return group.status();
    }

    @Override
    public void stop() {
        group.stop();
    }

    /**
     * Routes a client request to its key's shard (derecho.md §1.4, {@code ordered_send}): ordered
     * there if this member serves the shard, else redirected to the shard's members.
     */
    @Override
    public void onClientRequest(ClientRequest request) {
        long id = request.requestId();
        if (!group.member()) {
            ctx.reject(id, new Rejection.Unavailable(self + " is not a member of the group now (" + group.state() + ")"));
            return;
        }
        byte[] key;
        try {
            key = keyOf(request);
        } catch (KvException e) {
            ctx.complete(id, codec.encode(new KvResult.Failed(e.reason(), e.getMessage())));
            return;
        }
        int index = key == null ? 0 : KeyShards.shardOf(key, shards);
        if (!group.serves(index)) {
            List<NodeId> members = group.members(index);
            redirected++;
            if (members.isEmpty()) ctx.reject(id, new Rejection.Unavailable("shard " + index + " has no members in view " + group.viewId()));
            else ctx.reject(id, new Rejection.Redirect(members));
            return;
        }
        byte[] message = new Envelope(request.kind() == ClientRequest.Kind.READ, incarnation, id, request.session(), request.payload()).encode();
        if (message.length > maxPayloadBytes) {
            ctx.complete(id, codec.encode(new KvResult.Failed(KvException.Reason.VALUE_TOO_LARGE, "the request takes " + message.length
                    + " bytes in the shard's multicast, more than its " + maxPayloadBytes + "-byte slot (raise the group's slot size, or send smaller values)")));
            return;
        }
        String refused = group.orderedSend(index, message);
        if (refused != null) {
            ctx.reject(id, new Rejection.Overloaded(refused));
            return;
        }
        sent.put(id, index);
    }

    /** The key that picks the request's shard; null for a scan of a one-shard store (any shard is the only one). */
    private byte[] keyOf(ClientRequest request) {
        if (request.kind() == ClientRequest.Kind.COMMAND) return codec.decodeCommand(request.payload()).key();
        KvQuery q = codec.decodeQuery(request.payload());
        return switch (q) {
            case KvQuery.Get g -> g.key();
            case KvQuery.Scan s -> {
                if (shards > 1) {
                    throw new KvException(KvException.Reason.INVALID_ARGUMENT, "a scan covers keys of every shard, and this store has " + shards
                            + " shards (keys are placed by hash): scans are refused; read keys one by one");
                }
                yield null;
            }
        };
    }

    // ---- ShardListener: the shards' ordered deliveries and persistence frontiers ----

    /** Applies one request in the shard's total order; the member that sent it answers once it is persisted everywhere in the shard. */
    @Override
    public void deliver(int shard, NodeId sender, long version, byte[] payload) {
        ShardData d = data.computeIfAbsent(shard, i -> new ShardData());
        Envelope e = Envelope.decode(payload);
        if (e == null) {
            malformed++; // every member skips the same bytes: the replicas stay equal
            return;
        }
        d.applied++;
        byte[] result;
        if (e.read()) {
            result = d.machine.query(e.payload());
        } else if (e.session().isNone()) {
            result = d.machine.apply(d.applied, e.payload());
        } else {
            result = switch (d.sessions.decide(e.session())) {
                case SessionTable.Decision.Apply a -> {
                    byte[] r = d.machine.apply(d.applied, e.payload());
                    d.sessions.record(e.session(), r);
                    yield r;
                }
                case SessionTable.Decision.Duplicate dup -> dup.cachedResult();
                case SessionTable.Decision.Stale s -> null;
            };
        }
        if (!sender.equals(self) || e.incarnation() != incarnation || sent.remove(e.requestId()) == null) return;
        if (result == null) {
            ctx.reject(e.requestId(), new Rejection.Unavailable("command " + e.session().sequence() + " of client " + e.session().clientId()
                    + " is below the session's low watermark: its result is forgotten"));
            return;
        }
        if (version <= d.persisted) {
            ctx.complete(e.requestId(), result);
            return;
        }
        d.waitingIds.put(version, new long[] {e.requestId()});
        d.waitingResults.put(e.requestId(), result);
    }

    @Override
    public void persisted(int shard, long version) {
        ShardData d = data.get(shard);
        if (d == null) return;
        d.persisted = Math.max(d.persisted, version);
        for (Iterator<Map.Entry<Long, long[]>> it = d.waitingIds.headMap(version, true).entrySet().iterator(); it.hasNext();) {
            long id = it.next().getValue()[0];
            it.remove();
            ctx.complete(id, d.waitingResults.remove(id));
        }
    }

    @Override
    public void replayStarts(int shard) {
        ShardData old = data.put(shard, new ShardData());
        if (old != null) refuseWaiting(old, "its state was replaced by a copy of the shard's history");
    }

    /**
     * A new view: publishes the layout, forgets the shards this member left and refuses the requests
     * it can no longer answer (the client retries; a command's session makes the retry safe).
     */
    @Override
    public void viewInstalled(long vid, List<List<NodeId>> list) {
        List<List<String>> map = new ArrayList<>();
        for (List<NodeId> s : list) map.add(s.stream().map(NodeId::value).toList());
        onShardMap.accept(new ShardMap(vid, map));
        for (Iterator<Map.Entry<Integer, ShardData>> it = data.entrySet().iterator(); it.hasNext();) {
            Map.Entry<Integer, ShardData> e = it.next();
            if (e.getKey() < list.size() && list.get(e.getKey()).contains(self)) continue;
            refuseWaiting(e.getValue(), self + " left shard " + e.getKey() + " in view " + vid);
            it.remove();
        }
        for (Iterator<Map.Entry<Long, Integer>> it = sent.entrySet().iterator(); it.hasNext();) {
            Map.Entry<Long, Integer> e = it.next();
            int index = e.getValue();
            if (index < list.size() && list.get(index).contains(self)) continue;
            ctx.reject(e.getKey(), new Rejection.Unavailable(self + " left shard " + index + " in view " + vid + " before its request was ordered"));
            it.remove();
        }
    }

    private void refuseWaiting(ShardData d, String why) {
        for (long[] id : d.waitingIds.values()) {
            ctx.reject(id[0], new Rejection.Unavailable("applied but not yet on disk at every member of the shard when " + why + "; retry"));
        }
        d.waitingIds.clear();
        d.waitingResults.clear();
    }

    /** A member that shut down (minority side, removed) answers nothing more: its waiting requests are refused now rather than timing out. */
    private void failIfStopped() {
        if (group.member() || (sent.isEmpty() && data.isEmpty())) return;
        for (long id : sent.keySet()) ctx.reject(id, new Rejection.Unavailable(self + " left the group before the request was ordered"));
        sent.clear();
        for (ShardData d : data.values()) refuseWaiting(d, self + " left the group");
        data.clear();
    }

    // ---- for tests and the demo ----

    /** The shards this member serves now, with the number of entries in each one's tree. */
    public Map<Integer, Long> shardSizes() {
        Map<Integer, Long> out = new TreeMap<>();
        data.forEach((i, d) -> out.put(i, (long) d.machine.state().size()));
        return out;
    }

    /** Messages that were no request envelope (never expected: only this class writes into the shards). */
    public long malformed() {
        return malformed;
    }

    /** Requests this member redirected to another shard's members. */
    public long redirected() {
        return redirected;
    }
}
