package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The records a member of durable shards appends to its log (derecho.md §4.6, §5.9, §8.13), one
 * {@link io.tandem.storage.LogEntry} each. The log is the member's only durable state of the shards:
 * on restart it is read from the start and replayed into per-shard histories ({@link DurableShards}).
 * Everything is written in delivery order, so for each shard the log holds its messages in version
 * order, and whatever prefix of the log survives a crash is a prefix of each shard's history.
 */
sealed interface DurableRecord {
    byte VIEW = 1;
    byte ENTRY = 2;
    byte RESET = 3;
    byte COMPLETE = 4;

    /**
     * A view, logged before this member echoes the trim that leads to it (derecho.md §5.7/§5.9: the
     * view is on disk before it is used), or when it installs a view it did not come to through a
     * trim of its own (a joiner; a restarted member). {@code continuing}: this member was in view
     * {@code vid - 1} and delivered its trim, so its histories carry over. {@code sources}: in a view
     * decided by a total-failure restart, the member whose log each durable shard restarts from.
     * {@code ballot}: the rank + 1 of the leader whose trim leads to the view (0 if none): a leader
     * logs its proposal's view before publishing the trim and may crash before it does, so a log can
     * hold a view that was never installed; a later leader's trim for the same view id then carries a
     * higher ballot (it could only publish after every unsuspected member acked it, and none of them
     * had echoed the earlier trim), and the restart leader trusts the higher ballot.
     */
    record View(long vid, long ballot, List<NodeId> members, List<List<NodeId>> shards, boolean continuing, Map<ShardId, NodeId> sources) implements DurableRecord {
        public View {
            members = List.copyOf(members);
            shards = shards.stream().map(List::copyOf).toList();
            sources = Map.copyOf(sources);
        }
    }

    /** A message delivered in a durable shard, at version {@code (vid << 32) | position}. */
    record Entry(ShardId shard, long version, NodeId sender, byte[] payload) implements DurableRecord {}

    /** Forget this shard's history: the member is about to copy a complete one from another (§5.7). */
    record Reset(ShardId shard) implements DurableRecord {}

    /** The shard's history up to the start of view {@code vid} is now in the log (after a {@link Reset}). */
    record Complete(ShardId shard, long vid) implements DurableRecord {}

    static byte[] encode(DurableRecord r) {
        ByteBuffer b = ByteBuffer.allocate(size(r));
        switch (r) {
            case View v -> {
                b.put(VIEW).putLong(v.vid()).putLong(v.ballot()).put((byte) (v.continuing() ? 1 : 0));
                nodes(b, v.members());
                b.putInt(v.shards().size());
                for (List<NodeId> s : v.shards()) nodes(b, s);
                b.putInt(v.sources().size());
                // In a fixed order, so equal records have equal bytes.
                for (Map.Entry<ShardId, NodeId> e : v.sources().entrySet().stream().sorted(Map.Entry.comparingByKey(java.util.Comparator.comparing(ShardId::toString))).toList()) {
                    shard(b, e.getKey());
                    string(b, e.getValue().value());
                }
            }
            case Entry e -> {
                b.put(ENTRY);
                shard(b, e.shard());
                b.putLong(e.version());
                string(b, e.sender().value());
                b.putInt(e.payload().length).put(e.payload());
            }
            case Reset x -> {
                b.put(RESET);
                shard(b, x.shard());
            }
            case Complete c -> {
                b.put(COMPLETE);
                shard(b, c.shard());
                b.putLong(c.vid());
            }
        }
        return b.array();
    }

    /** The record in {@code bytes}; throws {@link IllegalArgumentException} on bytes that are no record (a log of another engine). */
    static DurableRecord decode(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            byte kind = b.get();
            DurableRecord r = switch (kind) {
                case VIEW -> {
                    long vid = b.getLong();
                    long ballot = b.getLong();
                    boolean continuing = b.get() == 1;
                    List<NodeId> members = nodes(b);
                    int n = b.getInt();
                    List<List<NodeId>> shards = new ArrayList<>();
                    for (int i = 0; i < n; i++) shards.add(nodes(b));
                    int k = b.getInt();
                    Map<ShardId, NodeId> sources = new java.util.HashMap<>();
                    for (int i = 0; i < k; i++) sources.put(shard(b), NodeId.of(string(b)));
                    yield new View(vid, ballot, members, shards, continuing, sources);
                }
                case ENTRY -> {
                    ShardId s = shard(b);
                    long version = b.getLong();
                    NodeId sender = NodeId.of(string(b));
                    byte[] payload = new byte[b.getInt()];
                    b.get(payload);
                    yield new Entry(s, version, sender, payload);
                }
                case RESET -> new Reset(shard(b));
                case COMPLETE -> new Complete(shard(b), b.getLong());
                default -> throw new IllegalArgumentException("unknown durable record kind " + kind);
            };
            if (b.hasRemaining()) throw new IllegalArgumentException(b.remaining() + " bytes after a durable record");
            return r;
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not a virtual-synchrony log record: " + e.getMessage(), e);
        }
    }

    private static int size(DurableRecord r) {
        return switch (r) {
            case View v -> {
                int s = 1 + 8 + 8 + 1 + nodesSize(v.members()) + 4 + 4;
                for (List<NodeId> sh : v.shards()) s += nodesSize(sh);
                for (Map.Entry<ShardId, NodeId> e : v.sources().entrySet()) s += shardSize(e.getKey()) + stringSize(e.getValue().value());
                yield s;
            }
            case Entry e -> 1 + shardSize(e.shard()) + 8 + stringSize(e.sender().value()) + 4 + e.payload().length;
            case Reset x -> 1 + shardSize(x.shard());
            case Complete c -> 1 + shardSize(c.shard()) + 8;
        };
    }

    private static int stringSize(String s) {
        return 4 + s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static int shardSize(ShardId s) {
        return stringSize(s.subgroup()) + 4;
    }

    private static int nodesSize(List<NodeId> nodes) {
        int s = 4;
        for (NodeId n : nodes) s += stringSize(n.value());
        return s;
    }

    private static void string(ByteBuffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        b.putInt(bytes.length).put(bytes);
    }

    private static String string(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) throw new IllegalArgumentException("string of " + n + " bytes");
        byte[] bytes = new byte[n];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void shard(ByteBuffer b, ShardId s) {
        string(b, s.subgroup());
        b.putInt(s.index());
    }

    private static ShardId shard(ByteBuffer b) {
        return new ShardId(string(b), b.getInt());
    }

    private static void nodes(ByteBuffer b, List<NodeId> nodes) {
        b.putInt(nodes.size());
        for (NodeId n : nodes) string(b, n.value());
    }

    private static List<NodeId> nodes(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) throw new IllegalArgumentException("list of " + n + " nodes");
        List<NodeId> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(NodeId.of(string(b)));
        return out;
    }
}
