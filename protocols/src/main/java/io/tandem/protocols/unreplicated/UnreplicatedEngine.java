package io.tandem.protocols.unreplicated;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.sim.Inspectable;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent;
import java.util.List;
import java.util.Map;

/**
 * A single server with a durable log and nothing else: the upper bound a replication protocol is measured
 * against on the same runtime, storage, transport and state machine. It is not fault tolerant; when its one
 * node is down, the service is down.
 *
 * <p>A write is appended to the node's {@link DurableLog} and committed, executed and acknowledged once the
 * log reports it durable ({@link StorageEvent.LogSynced}), in log order. With fsync on that is after an
 * {@code fsync} of its group-committed batch, with fsync off after the write to the page cache: exactly what
 * "durable" means for the Raft leader's own vote, so a benchmark compares like with like. A read is served from
 * the local state once everything committed when it arrived has been applied; with one member there is no
 * newer leader that could have committed more, so that read is linearizable.
 *
 * <p>A restart resumes from the newest snapshot and commits every entry the log recovered: whatever survived
 * on disk was either acknowledged or is in doubt for its client, and applying it is correct either way.
 * Snapshots follow {@link UnreplicatedConfig#snapshotThreshold()} and compact the log up to them.
 */
public class UnreplicatedEngine implements Engine, Inspectable {
    /** The term every entry carries: there are no elections, so no term ever changes. */
    static final long TERM = 1;

    private final NodeId self;
    private final UnreplicatedConfig config;
    private EngineContext ctx;

    private long commitIndex;
    private long deliveredIndex;
    private long appliedIndex;
    private long lastSnapshotIndex;
    private boolean snapshotInProgress;
    private long snapshotToken;
    private boolean storageFailed;

    UnreplicatedEngine(NodeId self, List<NodeId> members, UnreplicatedConfig config) {
        requireSingleMember(self, members);
        this.self = self;
        this.config = config;
    }

    /** @throws IllegalArgumentException unless {@code members} is exactly {@code [self]} */
    static void requireSingleMember(NodeId self, List<NodeId> members) {
        if (members.size() != 1 || !members.getFirst().equals(self)) {
            throw new IllegalArgumentException("the " + UnreplicatedProtocol.NAME + " protocol runs exactly one member (it replicates nothing"
                    + " and tolerates no failure); " + self + " was given " + members.size() + " members " + members
                    + ": use raft or multipaxos for a group");
        }
    }

    long commitIndex() {
        return commitIndex;
    }

    DurableLog log() {
        return ctx.log();
    }

    /** The only member leads, in an epoch that never changes, and has no peer to lag. */
    @Override
    public EngineStatus status() {
        return new EngineStatus(EngineStatus.Role.LEADER, self, 0, List.of(self), List.of(), commitIndex, appliedIndex, Map.of());
    }

    @Override
    public String inspect() {
        DurableLog log = ctx.log();
        return self + " unreplicated last=" + log.lastIndex() + " durable=" + log.durableIndex() + " commit=" + commitIndex
                + " delivered=" + deliveredIndex + " applied=" + appliedIndex + " snapshot=" + lastSnapshotIndex
                + (storageFailed ? " STORAGE FAILED" : "");
    }

    @Override
    public void start(EngineContext context) {
        this.ctx = context;
        long snapshotIndex = ctx.snapshots().latest().map(SnapshotMeta::lastIncludedIndex).orElse(0L);
        DurableLog log = ctx.log();
        if (log.lastIndex() < snapshotIndex) {
            // Log writes behind a snapshot were lost (fsync off and a power failure); the snapshot holds their effect.
            log.resetAfter(snapshotIndex);
        } else if (log.firstIndex() > snapshotIndex + 1) {
            throw new IllegalStateException("the log starts at " + log.firstIndex() + " but the newest snapshot ends at " + snapshotIndex
                    + ": entries in between are missing (the log and the snapshots do not belong together)");
        }
        commitIndex = snapshotIndex;
        deliveredIndex = snapshotIndex;
        appliedIndex = snapshotIndex;
        lastSnapshotIndex = snapshotIndex;
        commitDurableEntries();
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        if (storageFailed) {
            ctx.reject(request.requestId(), new Rejection.Unavailable(self + " cannot make anything durable: its storage failed"));
            return;
        }
        switch (request.kind()) {
            case COMMAND -> onCommand(request);
            case READ -> onRead(request);
        }
    }

    private void onCommand(ClientRequest request) {
        DurableLog log = ctx.log();
        long index = log.lastIndex() + 1;
        log.append(new LogEntry(index, TERM, EntryCodec.encode(request.requestId(), request.session(), request.payload())));
        commitUpTo(committableIndex());
    }

    private void onRead(ClientRequest request) {
        long readIndex = request.readPolicy() instanceof ReadPolicy.Stale s ? Math.max(commitIndex, s.minIndex()) : commitIndex;
        ctx.serveRead(request.requestId(), readIndex);
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.LogSynced synced -> commitDurableEntries();
            case StorageEvent.SnapshotTaken taken -> onSnapshotTaken(taken);
            case StorageEvent.StorageFailed failed -> storageFailed = true;
            default -> { }
        }
    }

    @Override
    public void onApplied(long index) {
        appliedIndex = Math.max(appliedIndex, index);
        if (!snapshotInProgress && appliedIndex - lastSnapshotIndex >= config.snapshotThreshold()) {
            snapshotInProgress = true;
            snapshotToken++;
            ctx.takeSnapshot(snapshotToken);
        }
    }

    private void onSnapshotTaken(StorageEvent.SnapshotTaken taken) {
        if (taken.token() == snapshotToken) snapshotInProgress = false;
        long index = taken.snapshot().lastIncludedIndex();
        if (index <= lastSnapshotIndex) return;
        lastSnapshotIndex = index;
        DurableLog log = ctx.log();
        if (index >= log.firstIndex() && index <= log.lastIndex()) log.compactPrefix(index);
    }

    /** Commits what the log reports durable; the event's own value may be stale, {@code durableIndex()} is exact. */
    private void commitDurableEntries() {
        commitUpTo(committableIndex());
    }

    /**
     * The last entry that may be committed (executed and acknowledged): the last durable one, since with
     * no replicas the local disk is all that survives a crash. Overridable so tests can plant an engine
     * that acknowledges before the disk does.
     */
    long committableIndex() {
        return ctx.log().durableIndex();
    }

    private void commitUpTo(long index) {
        if (index <= commitIndex) return;
        commitIndex = index;
        DurableLog log = ctx.log();
        while (deliveredIndex < commitIndex) {
            long next = deliveredIndex + 1;
            ctx.deliver(EntryCodec.decode(next, self, log.entry(next).payload()));
            deliveredIndex = next;
        }
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        // No message types are registered and there are no peers: nothing can arrive.
        throw new IllegalStateException(self + " (unreplicated) received " + message.getClass().getSimpleName() + " from " + from);
    }

    @Override
    public void onTimer(TimerKey key) {
        throw new IllegalStateException(self + " (unreplicated) arms no timers, yet " + key + " fired");
    }
}
