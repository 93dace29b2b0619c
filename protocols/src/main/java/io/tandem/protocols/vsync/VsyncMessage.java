package io.tandem.protocols.vsync;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.storage.SnapshotMeta;
import java.util.List;

/**
 * The few messages of the virtual-synchrony engine: everything else (data, counters, suspicions,
 * proposals, trims) moves through the SST. These are Derecho's control-socket traffic (derecho.md
 * §5.4, §5.7): a join request and the state transfer to a joiner.
 */
public sealed interface VsyncMessage extends ProtocolMessage {
    /**
     * A process that is in no view asks to join (derecho.md §5.4); sent to every configured node,
     * repeated until it is in a view. The group's leader proposes it; a member that finds the
     * sender still in its view treats the request as news that the old process is gone.
     *
     * <p>With durable shards it carries what the joiner's log holds ({@code logVid}: the newest view
     * in it; {@code holds}: the durable shards of that view whose whole history it holds;
     * {@code lastVersions}: per shard of {@code logShards}, the highest version in it), so that the
     * leader can refill a durable shard that lost every member from a former member's log (derecho.md
     * §5.10). Empty otherwise.
     */
    record JoinRequest(long nonce, long logVid, List<ShardId> holds, List<ShardId> logShards, long[] lastVersions, long requestId)
            implements VsyncMessage, io.tandem.engine.ContactMessage {
        public JoinRequest {
            holds = List.copyOf(holds);
            logShards = List.copyOf(logShards);
            if (lastVersions.length != logShards.size()) throw new IllegalArgumentException(lastVersions.length + " versions for " + logShards.size() + " shards");
        }

        /** A join request without durable shards. */
        public JoinRequest(long nonce, long requestId) {
            this(nonce, 0, List.of(), List.of(), new long[0], requestId);
        }
    }

    /**
     * One chunk of the state of the group at the start of view {@code vid}, from that view's first
     * member to a joiner (derecho.md §5.7): the application's snapshot (its {@code Receiver.getState})
     * taken after the old view's trimmed messages were delivered, and the view's layout ({@code shards}:
     * every shard's members, subgroup by subgroup in the layout function's order), which the joiner
     * cannot compute without the previous layout. The joiner installs the view once the last chunk is in.
     * {@code sources}: per durable shard of {@code sourceShards} that lost every member in the view
     * before, the member whose log refills it (derecho.md §5.10).
     */
    record StateChunk(long vid, List<NodeId> members, List<List<NodeId>> shards, List<ShardId> sourceShards, List<NodeId> sources, SnapshotMeta snapshot, long offset, byte[] data, boolean last, long requestId)
            implements VsyncMessage {
        public StateChunk {
            members = List.copyOf(members);
            shards = shards.stream().map(List::copyOf).toList();
            sourceShards = List.copyOf(sourceShards);
            sources = List.copyOf(sources);
            if (sourceShards.size() != sources.size()) throw new IllegalArgumentException(sources.size() + " sources for " + sourceShards.size() + " shards");
        }
    }

    /** Derecho's {@code p2p_send} (derecho.md §1.4): a read-only request about shard {@code shard} of {@code subgroup}, not ordered with its multicasts. */
    record P2pQuery(String subgroup, int shard, long queryId, byte[] payload, long requestId) implements VsyncMessage {}

    /** The answer to a {@link P2pQuery}. */
    record P2pReply(long queryId, byte[] payload, long requestId) implements VsyncMessage {}

    /**
     * The group is in view {@code vid} and the receiver, which asked ({@link ViewProbe}), is not in
     * it: a process that started fresh after its seat was given up (it crashed before it
     * recorded that it had started, so it installed the initial view again), or a member removed while
     * no push reached it. Nobody pushes to it any more, so without this it would wait in its old view.
     */
    record Moved(long vid, long requestId) implements VsyncMessage, io.tandem.engine.ContactMessage {}

    /**
     * A member whose view {@code vid} has not become active (not every row shows it yet) asks the
     * view's other members where they are; one that is in a later view without the sender answers
     * {@link Moved}. The sender's own row cannot tell them: writes of non-members are not applied.
     */
    record ViewProbe(long vid, long requestId) implements VsyncMessage, io.tandem.engine.ContactMessage {}

    /** One message of a durable shard's history: its version, sender and payload (derecho.md §4.6). */
    record HistoryEntry(long version, NodeId sender, byte[] payload) {}

    /**
     * A process that restarted with durable shards in its log, or shut itself down, tells the restart
     * leader what its log holds (derecho.md §5.9): the newest view it logged, the durable shards of that
     * view whose whole history it holds, and per shard in its log the highest version. Repeated with the
     * join requests until it is in a view again.
     */
    record RestartReport(long vid, long ballot, List<NodeId> members, List<List<NodeId>> shards, List<ShardId> holds, List<ShardId> logShards, long[] lastVersions, long requestId)
            implements VsyncMessage, io.tandem.engine.ContactMessage {
        public RestartReport {
            members = List.copyOf(members);
            shards = shards.stream().map(List::copyOf).toList();
            holds = List.copyOf(holds);
            logShards = List.copyOf(logShards);
        }
    }

    /**
     * The restart leader's decision, first phase (derecho.md §5.9): the restart view and, per durable
     * shard, the member whose log it restarts from. The receiver logs the view, then answers {@link RestartAck}.
     */
    record RestartPrepare(long vid, List<NodeId> members, List<List<NodeId>> shards, List<ShardId> sourceShards, List<NodeId> sources, long requestId)
            implements VsyncMessage, io.tandem.engine.ContactMessage {
        public RestartPrepare {
            members = List.copyOf(members);
            shards = shards.stream().map(List::copyOf).toList();
            sourceShards = List.copyOf(sourceShards);
            sources = List.copyOf(sources);
        }
    }

    /** The restart view {@code vid} is in the sender's log. */
    record RestartAck(long vid, long requestId) implements VsyncMessage, io.tandem.engine.ContactMessage {}

    /** Every member of restart view {@code vid} logged it: install it (second phase). */
    record RestartCommit(long vid, long requestId) implements VsyncMessage, io.tandem.engine.ContactMessage {}

    /**
     * A member new to durable shard {@code shard} in view {@code vid} asks for the shard's history
     * before that view (derecho.md §5.7: persistent state goes with the state transfer). Answered
     * only by a member that holds it.
     */
    record HistoryFetch(ShardId shard, long vid, long requestId) implements VsyncMessage, io.tandem.engine.ContactMessage {}

    /** Every message of {@code shard} with a version below view {@code vid}, in order. */
    record HistoryReply(ShardId shard, long vid, List<HistoryEntry> entries, long requestId) implements VsyncMessage, io.tandem.engine.ContactMessage {
        public HistoryReply {
            entries = List.copyOf(entries);
        }
    }

    /**
     * RDMC's ready-for-block signal (derecho.md §3.3, the per-message handshake): the sender of this
     * message is ready for the block it receives in step {@code step} of the transfer of large message
     * {@code index} of shard rank {@code origin} of shard {@code shard} of {@code subgroup} in view
     * {@code vid}. Receiver-driven flow control: a block goes only to a member that asked for it.
     */
    record RdmcReady(long vid, String subgroup, int shard, int origin, long index, int step, long requestId) implements VsyncMessage {}

    /**
     * One block of a large message (see {@link RdmcReady}): block {@code block}, the transfer of step {@code step};
     * its bytes are {@code length} bytes of {@code data} from {@code offset}. A sender's block is a slice of the
     * message buffer (no copy; {@link RdmcBlockSerializer} writes it straight from there). One read off the wire
     * has its own array, or {@code data} null when the frame's slice did not fit it (refused on receipt).
     */
    record RdmcBlock(long vid, String subgroup, int shard, int origin, long index, int step, int block, byte[] data, int offset, int length, long requestId)
            implements VsyncMessage, io.tandem.codec.KnownEncodedSize, io.tandem.codec.TrailingBytes {
        public RdmcBlock {
            if (data != null) java.util.Objects.checkFromIndexSize(offset, length, data.length);
        }

        /** A block of all of {@code bytes}. */
        RdmcBlock(long vid, String subgroup, int shard, int origin, long index, int step, int block, byte[] bytes, long requestId) {
            this(vid, subgroup, shard, origin, index, step, block, bytes, 0, bytes == null ? 0 : bytes.length, requestId);
        }

        @Override
        public int encodedBodyBytes() {
            return RdmcBlockSerializer.bodyBytes(this);
        }

        /** The block's bytes are the encoding's last: a transport may copy them from here straight into its send buffer. */
        @Override
        public byte[] trailingArray() {
            return data;
        }

        @Override
        public int trailingOffset() {
            return offset;
        }

        @Override
        public int trailingLength() {
            return data == null ? 0 : length;
        }
    }

    static void register(MessageRegistry registry) {
        int id = CodecIds.DERECHO_FIRST;
        registry.register(JoinRequest.class, id++);
        registry.register(StateChunk.class, id++);
        registry.register(SnapshotMeta.class, id++);
        registry.register(Moved.class, id++);
        registry.register(ViewProbe.class, id++);
        registry.register(P2pQuery.class, id++);
        registry.register(P2pReply.class, id++);
        registry.register(ShardId.class, id++);
        registry.register(HistoryEntry.class, id++);
        registry.register(RestartReport.class, id++);
        registry.register(RestartPrepare.class, id++);
        registry.register(RestartAck.class, id++);
        registry.register(RestartCommit.class, id++);
        registry.register(HistoryFetch.class, id++);
        registry.register(HistoryReply.class, id++);
        registry.register(RdmcReady.class, id++);
        registry.register(RdmcBlock.class, new RdmcBlockSerializer(), id++);
    }
}
