package io.tandem.peers.jgroupsraft;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.jgroups.raft.Settable;

/**
 * The replica side of the thin client protocol ({@link Wire}): accepts connections from load drivers and
 * hands each put to the member's {@code RaftHandle.setAsync}, which applies it if this member leads and
 * otherwise forwards it to the leader through REDIRECT (jgroups-raft's own forwarding). A connection has a
 * reader (virtual thread) and a {@link FrameWriter}; completions only queue the response, so RAFT's thread
 * never writes to a socket.
 */
final class PutServer implements AutoCloseable {
    private final ServerSocket server;
    private final Settable raft;
    private final IntSupplier leaderIndex;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;

    PutServer(String host, int port, Settable raft, IntSupplier leaderIndex) throws IOException {
        this.raft = raft;
        this.leaderIndex = leaderIndex;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getByName(host), port), 128);
        this.acceptor = Thread.ofPlatform().daemon(true).name("put-server-accept-" + port).start(this::accept);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                socket.setTcpNoDelay(true);
                connections.add(socket);
                Thread.ofVirtual().name("put-server-read-" + socket.getPort()).start(() -> serve(socket));
            } catch (IOException e) {
                if (!server.isClosed()) System.err.println("jgroups-raft put server: accept failed: " + e);
            }
        }
    }

    private void serve(Socket socket) {
        FrameWriter writer = null;
        try (socket) {
            writer = new FrameWriter("put-server-write-" + socket.getPort(), socket.getOutputStream(), e -> closeQuietly(socket));
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
            while (true) {
                byte[] body = Wire.readFrame(in);
                long id = Wire.requestId(body);
                FrameWriter out = writer;
                try {
                    raft.setAsync(body, Wire.REQUEST_HEADER, body.length - Wire.REQUEST_HEADER).whenComplete((result, failure) ->
                            out.send(failure == null ? Wire.response(id, Wire.OK, leaderIndex.getAsInt(), null)
                                    : Wire.response(id, Wire.FAILED, leaderIndex.getAsInt(), String.valueOf(failure))));
                } catch (Exception e) { // setAsync throws when there is no leader to take the request
                    out.send(Wire.response(id, Wire.FAILED, leaderIndex.getAsInt(), String.valueOf(e)));
                }
            }
        } catch (EOFException | SocketException e) {
            // the client went away, or close() shut the socket
        } catch (IOException e) {
            System.err.println("jgroups-raft put server: connection failed: " + e);
        } finally {
            if (writer != null) writer.close();
            connections.remove(socket);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing after a failed write; nothing left to do with it
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : connections) closeQuietly(s);
        acceptor.interrupt();
    }
}
