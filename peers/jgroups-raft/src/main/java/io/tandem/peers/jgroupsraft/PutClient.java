package io.tandem.peers.jgroupsraft;

import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The load driver's side of the thin client protocol ({@link Wire}): one pipelined connection per replica,
 * puts sent to the replica believed to lead. Every response names the current leader, so after the first
 * response (or a leader change) puts go straight to the leader; a put that reaches a follower is still
 * committed, forwarded by that member's REDIRECT. A broken connection fails its outstanding puts and is
 * re-established in the background while puts go to another replica.
 */
final class PutClient implements PeerClient {
    static final long PUT_TIMEOUT_SECONDS = 10;
    static final long RECONNECT_MILLIS = 200;
    static final int CONNECT_TIMEOUT_MILLIS = 2000;

    private final ClusterLayout layout;
    private final int portOffset;
    private final AtomicReferenceArray<Connection> connections;
    private final AtomicLong ids = new AtomicLong();
    private volatile int target;
    private volatile boolean closed;

    private PutClient(ClusterLayout layout, int portOffset) {
        this.layout = layout;
        this.portOffset = portOffset;
        this.connections = new AtomicReferenceArray<>(layout.replicas());
    }

    /** Connects to every replica it can reach; fails only if none answers. */
    static PutClient connect(ClusterLayout layout, int portOffset) throws IOException {
        PutClient client = new PutClient(layout, portOffset);
        IOException last = null;
        for (int i = 0; i < layout.replicas(); i++) {
            try {
                client.connections.set(i, client.open(i));
            } catch (IOException e) {
                last = e;
                client.reconnectLater(i);
            }
        }
        if (client.live(0) == null && last != null) {
            client.close();
            throw new IOException("no jgroups-raft replica accepts connections", last);
        }
        return client;
    }

    private Connection open(int replica) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(layout.host(), layout.port(replica, portOffset)), CONNECT_TIMEOUT_MILLIS);
            return new Connection(replica, socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private void reconnectLater(int replica) {
        Thread.ofVirtual().name("jgroups-raft-reconnect-" + replica).start(() -> {
            while (!closed) {
                try {
                    TimeUnit.MILLISECONDS.sleep(RECONNECT_MILLIS); // back-off between connection attempts
                    Connection c = open(replica);
                    if (closed) {
                        c.close();
                    } else {
                        connections.set(replica, c);
                    }
                    return;
                } catch (IOException e) {
                    // replica still down; try again after the back-off
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** The leader's connection if it is up, else the first live one from {@code preferred} on, else null. */
    private Connection live(int preferred) {
        int n = layout.replicas();
        for (int i = 0; i < n; i++) {
            Connection c = connections.get((preferred + i) % n);
            if (c != null && c.alive) return c;
        }
        return null;
    }

    @Override
    public CompletableFuture<Void> put(byte[] key, byte[] value) {
        Connection c = live(target);
        if (c == null) return CompletableFuture.failedFuture(new IOException("no connection to any jgroups-raft replica"));
        long id = ids.incrementAndGet();
        CompletableFuture<Void> result = new CompletableFuture<>();
        c.pending.put(id, result);
        if (!c.alive || !c.writer.send(Wire.request(id, key, value))) {
            c.pending.remove(id);
            return CompletableFuture.failedFuture(new IOException("connection to replica " + c.replica + " is closed"));
        }
        return result.orTimeout(PUT_TIMEOUT_SECONDS, TimeUnit.SECONDS).whenComplete((ignored, failure) -> {
            if (failure != null) c.pending.remove(id);
        });
    }

    @Override
    public void close() {
        closed = true;
        for (int i = 0; i < connections.length(); i++) {
            Connection c = connections.get(i);
            if (c != null) c.close();
        }
    }

    /** One pipelined connection to one replica's {@link PutServer}. */
    private final class Connection {
        final int replica;
        final Socket socket;
        final FrameWriter writer;
        final Map<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
        volatile boolean alive = true;

        Connection(int replica, Socket socket) throws IOException {
            this.replica = replica;
            this.socket = socket;
            this.writer = new FrameWriter("jgroups-raft-client-write-" + replica, socket.getOutputStream(), this::failed);
            Thread.ofVirtual().name("jgroups-raft-client-read-" + replica).start(this::read);
        }

        private void read() {
            try {
                DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
                while (true) {
                    Wire.Response r = Wire.parseResponse(Wire.readFrame(in));
                    if (r.leader() >= 0 && r.leader() < layout.replicas() && r.leader() != target) target = r.leader();
                    CompletableFuture<Void> f = pending.remove(r.id());
                    if (f == null) continue; // timed out already
                    if (r.status() == Wire.OK) f.complete(null);
                    else f.completeExceptionally(new IllegalStateException("replica " + replica + ": " + r.error()));
                }
            } catch (IOException e) {
                failed(e);
            }
        }

        private void failed(IOException e) {
            if (!alive) return;
            alive = false;
            writer.interrupt();
            try {
                socket.close();
            } catch (IOException ignored) {
                // already broken
            }
            pending.values().forEach(f -> f.completeExceptionally(new IOException("connection to replica " + replica + " failed", e)));
            pending.clear();
            if (!closed) {
                connections.compareAndSet(replica, this, null);
                reconnectLater(replica);
            }
        }

        void close() {
            alive = false;
            writer.close();
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
            pending.values().forEach(f -> f.completeExceptionally(new IOException("client closed")));
        }
    }
}
