package io.tandem.peers.sofajraft;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.LeaderChangeContext;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.error.RaftException;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotReader;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotWriter;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replicated map: each log entry is one put ({@link #encode}), applied in log order on jraft's FSM caller
 * thread. The leader's closure for an entry (set by {@link PutProcessor}) runs here, after the entry is committed
 * and applied, so the client's acknowledgement means "committed and applied on the leader".
 */
final class KvStateMachine extends StateMachineAdapter {
    private static final String SNAPSHOT_FILE = "kv.bin";

    private final Map<Key, byte[]> map = new ConcurrentHashMap<>();
    private final AtomicLong applied = new AtomicLong();
    private volatile boolean leader;
    private volatile boolean following;

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

    /** One put as a log entry: key length (4 bytes, big-endian), key, value. */
    static ByteBuffer encode(byte[] key, byte[] value) {
        ByteBuffer entry = ByteBuffer.allocate(4 + key.length + value.length);
        entry.putInt(key.length).put(key).put(value).flip();
        return entry;
    }

    @Override
    public void onApply(Iterator iter) {
        while (iter.hasNext()) {
            // A view of the entry's bytes: jraft keeps log entries cached and may hand the same buffer out again, so
            // reading it with relative gets would consume it for the next reader (seen as BufferUnderflowException on
            // a follower's shutdown, after which jraft's FSM thread never finished and the node never shut down).
            ByteBuffer entry = iter.getData() == null ? ByteBuffer.allocate(0) : iter.getData().duplicate();
            Closure done = iter.done(); // non-null only on the leader that proposed the entry
            int keyLength = entry.remaining() >= Integer.BYTES ? entry.getInt() : -1;
            if (keyLength < 0 || keyLength > entry.remaining()) {
                // Not a put of ours: never throw from onApply (jraft's FSM thread would stop); fail the proposer instead.
                if (done != null) done.run(new Status(RaftError.EINVAL, "malformed put entry of %d bytes", iter.getData() == null ? 0 : iter.getData().remaining()));
                iter.next();
                continue;
            }
            byte[] key = new byte[keyLength];
            entry.get(key);
            byte[] value = new byte[entry.remaining()];
            entry.get(value);
            map.put(new Key(key), value);
            applied.incrementAndGet();
            if (done != null) done.run(Status.OK());
            iter.next();
        }
    }

    @Override
    public void onSnapshotSave(SnapshotWriter writer, Closure done) {
        // Called on the FSM thread, so the map does not change while it is written.
        Path file = Path.of(writer.getPath(), SNAPSHOT_FILE);
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            out.writeInt(map.size());
            for (Map.Entry<Key, byte[]> e : map.entrySet()) {
                out.writeInt(e.getKey().bytes().length);
                out.write(e.getKey().bytes());
                out.writeInt(e.getValue().length);
                out.write(e.getValue());
            }
        } catch (IOException e) {
            done.run(new Status(RaftError.EIO, "cannot write snapshot %s: %s", file, e));
            return;
        }
        done.run(writer.addFile(SNAPSHOT_FILE) ? Status.OK() : new Status(RaftError.EIO, "cannot add snapshot file %s", file));
    }

    @Override
    public boolean onSnapshotLoad(SnapshotReader reader) {
        if (leader) return false; // jraft never loads a snapshot into a leader; refuse rather than clobber its state
        Path file = Path.of(reader.getPath(), SNAPSHOT_FILE);
        if (reader.getFileMeta(SNAPSHOT_FILE) == null || !Files.exists(file)) return false;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            map.clear();
            int entries = in.readInt();
            for (int i = 0; i < entries; i++) {
                byte[] key = new byte[in.readInt()];
                in.readFully(key);
                byte[] value = new byte[in.readInt()];
                in.readFully(value);
                map.put(new Key(key), value);
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void onLeaderStart(long term) {
        leader = true;
        following = false;
    }

    @Override
    public void onLeaderStop(Status status) {
        leader = false;
    }

    @Override
    public void onStartFollowing(LeaderChangeContext ctx) {
        following = true;
    }

    @Override
    public void onStopFollowing(LeaderChangeContext ctx) {
        following = false;
    }

    @Override
    public void onError(RaftException e) {
        leader = false;
        following = false;
    }

    /** True from {@code onLeaderStart} (the leader's first entry of its term is applied) to {@code onLeaderStop}. */
    boolean isLeader() {
        return leader;
    }

    /** True while this node follows a known leader. */
    boolean isFollowing() {
        return following;
    }

    /** The number of puts applied since this replica started (replayed ones included). */
    long appliedCount() {
        return applied.get();
    }

    /** The value of {@code key} as applied here, or {@code null}. */
    byte[] get(byte[] key) {
        return map.get(new Key(key));
    }
}
