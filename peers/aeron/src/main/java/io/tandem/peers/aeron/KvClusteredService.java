package io.tandem.peers.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.ImageFragmentAssembler;
import io.aeron.cluster.codecs.CloseReason;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredService;
import io.aeron.logbuffer.Header;
import io.tandem.peers.driver.Role;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The replicated map as an Aeron clustered service. Each ingress message is one put ({@link #encodePut});
 * the service applies it and answers on the client's session with the message's correlation id. Aeron Cluster
 * hands a message to the service only once it is committed (recorded by a quorum's archives), and only the
 * leader's {@link ClientSession#offer} reaches the client, so the reply means "committed and applied".
 */
final class KvClusteredService implements ClusteredService {
    /** Ingress: correlation id (8), key length (4), key, value. Egress: correlation id (8). */
    static final int PUT_HEADER = BitUtil.SIZE_OF_LONG + BitUtil.SIZE_OF_INT;

    private final Map<Key, byte[]> map = new ConcurrentHashMap<>();
    private final AtomicLong applied = new AtomicLong();
    private final UnsafeBuffer reply = new UnsafeBuffer(new byte[BitUtil.SIZE_OF_LONG]);
    private final ExpandableArrayBuffer snapshotBuffer = new ExpandableArrayBuffer();
    private volatile Role role = Role.OTHER;
    private Cluster cluster;

    /** A byte-array map key with value semantics. */
    record Key(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key other && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    /** Writes a put message into {@code buffer} at 0 and returns its length. */
    static int encodePut(ExpandableArrayBuffer buffer, long correlationId, byte[] key, byte[] value) {
        buffer.putLong(0, correlationId, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(BitUtil.SIZE_OF_LONG, key.length, ByteOrder.LITTLE_ENDIAN);
        buffer.putBytes(PUT_HEADER, key);
        buffer.putBytes(PUT_HEADER + key.length, value);
        return PUT_HEADER + key.length + value.length;
    }

    @Override
    public void onStart(Cluster cluster, Image snapshotImage) {
        this.cluster = cluster;
        role = toRole(cluster.role());
        if (snapshotImage != null) loadSnapshot(snapshotImage);
    }

    @Override
    public void onSessionOpen(ClientSession session, long timestamp) {
    }

    @Override
    public void onSessionClose(ClientSession session, long timestamp, CloseReason closeReason) {
    }

    @Override
    public void onSessionMessage(ClientSession session, long timestamp, DirectBuffer buffer, int offset, int length, Header header) {
        long correlationId = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        int keyLength = buffer.getInt(offset + BitUtil.SIZE_OF_LONG, ByteOrder.LITTLE_ENDIAN);
        byte[] key = new byte[keyLength];
        buffer.getBytes(offset + PUT_HEADER, key);
        byte[] value = new byte[length - PUT_HEADER - keyLength];
        buffer.getBytes(offset + PUT_HEADER + keyLength, value);
        map.put(new Key(key), value);
        applied.incrementAndGet();

        reply.putLong(0, correlationId, ByteOrder.LITTLE_ENDIAN);
        // On followers offer is a no-op that succeeds; on the leader it is back-pressured only briefly.
        IdleStrategy idle = cluster.idleStrategy();
        idle.reset();
        while (session.offer(reply, 0, reply.capacity()) < 0) {
            if (session.isClosing()) return; // the client is gone; nobody to answer
            idle.idle();
        }
    }

    @Override
    public void onTimerEvent(long correlationId, long timestamp) {
    }

    /** Snapshot: one message with the entry count, then one message per entry (key length, key, value). */
    @Override
    public void onTakeSnapshot(ExclusivePublication snapshot) {
        snapshotBuffer.putInt(0, map.size(), ByteOrder.LITTLE_ENDIAN);
        offer(snapshot, BitUtil.SIZE_OF_INT);
        for (Map.Entry<Key, byte[]> e : map.entrySet()) {
            byte[] key = e.getKey().bytes();
            snapshotBuffer.putInt(0, key.length, ByteOrder.LITTLE_ENDIAN);
            snapshotBuffer.putBytes(BitUtil.SIZE_OF_INT, key);
            snapshotBuffer.putBytes(BitUtil.SIZE_OF_INT + key.length, e.getValue());
            offer(snapshot, BitUtil.SIZE_OF_INT + key.length + e.getValue().length);
        }
    }

    private void offer(ExclusivePublication publication, int length) {
        IdleStrategy idle = cluster.idleStrategy();
        idle.reset();
        long result;
        while ((result = publication.offer(snapshotBuffer, 0, length)) < 0) {
            if (result == ExclusivePublication.CLOSED || result == ExclusivePublication.MAX_POSITION_EXCEEDED) {
                throw new IllegalStateException("snapshot publication failed: " + result);
            }
            idle.idle();
        }
    }

    private void loadSnapshot(Image image) {
        map.clear();
        long[] expected = {-1};
        long[] loaded = {0};
        ImageFragmentAssembler assembler = new ImageFragmentAssembler((buffer, offset, length, header) -> {
            if (expected[0] < 0) {
                expected[0] = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
                return;
            }
            int keyLength = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
            byte[] key = new byte[keyLength];
            buffer.getBytes(offset + BitUtil.SIZE_OF_INT, key);
            byte[] value = new byte[length - BitUtil.SIZE_OF_INT - keyLength];
            buffer.getBytes(offset + BitUtil.SIZE_OF_INT + keyLength, value);
            map.put(new Key(key), value);
            loaded[0]++;
        });
        IdleStrategy idle = cluster.idleStrategy();
        while (expected[0] < 0 || loaded[0] < expected[0]) {
            if (image.isEndOfStream()) {
                throw new IllegalStateException("snapshot ended after " + loaded[0] + " of " + expected[0] + " entries");
            }
            idle.idle(image.poll(assembler, 64));
        }
    }

    @Override
    public void onRoleChange(Cluster.Role newRole) {
        role = toRole(newRole);
    }

    @Override
    public void onTerminate(Cluster cluster) {
        role = Role.OTHER;
    }

    private static Role toRole(Cluster.Role role) {
        return switch (role) {
            case LEADER -> Role.LEADER;
            case FOLLOWER -> Role.FOLLOWER;
            case CANDIDATE -> Role.OTHER;
        };
    }

    Role role() {
        return role;
    }

    long appliedCount() {
        return applied.get();
    }

    /** The value of {@code key} as applied here, or {@code null}. */
    byte[] get(byte[] key) {
        return map.get(new Key(key));
    }
}
