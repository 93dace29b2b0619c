package io.tandem.peers.jgroupsraft;

import java.io.DataInput;
import java.io.DataOutput;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jgroups.raft.StateMachine;

/**
 * The benchmark's replicated map as a jgroups-raft state machine. A log entry is one put in the layout of
 * {@link Wire#putPayload}: key length (4 bytes), key, value. {@code apply} runs on RAFT's single thread in log
 * order; a concurrent map lets tests and the role poller look in from other threads.
 */
final class MapStateMachine implements StateMachine {
    private static final byte[] EMPTY = {};
    private final Map<ByteBuffer, byte[]> map = new ConcurrentHashMap<>();

    @Override
    public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
        if (length < 4) throw new IllegalArgumentException("put entry of " + length + " bytes is shorter than its header");
        int keyLength = ByteBuffer.wrap(data, offset, 4).getInt();
        if (keyLength < 0 || 4 + keyLength > length) throw new IllegalArgumentException("put entry's key length " + keyLength + " exceeds its " + length + " bytes");
        int keyStart = offset + 4;
        int valueStart = keyStart + keyLength;
        map.put(ByteBuffer.wrap(java.util.Arrays.copyOfRange(data, keyStart, valueStart)),
                java.util.Arrays.copyOfRange(data, valueStart, offset + length));
        return serializeResponse ? EMPTY : null;
    }

    /** Snapshot: entry count, then (key length, key, value length, value) per entry. */
    @Override
    public void writeContentTo(DataOutput out) throws Exception {
        Map<ByteBuffer, byte[]> copy = Map.copyOf(map);
        out.writeInt(copy.size());
        for (Map.Entry<ByteBuffer, byte[]> e : copy.entrySet()) {
            byte[] key = new byte[e.getKey().remaining()];
            e.getKey().duplicate().get(key);
            out.writeInt(key.length);
            out.write(key);
            out.writeInt(e.getValue().length);
            out.write(e.getValue());
        }
    }

    @Override
    public void readContentFrom(DataInput in) throws Exception {
        map.clear();
        int entries = in.readInt();
        for (int i = 0; i < entries; i++) {
            byte[] key = new byte[in.readInt()];
            in.readFully(key);
            byte[] value = new byte[in.readInt()];
            in.readFully(value);
            map.put(ByteBuffer.wrap(key), value);
        }
    }

    /** The applied value of {@code key}, or {@code null}. */
    byte[] applied(byte[] key) {
        return map.get(ByteBuffer.wrap(key));
    }

    int size() {
        return map.size();
    }
}
