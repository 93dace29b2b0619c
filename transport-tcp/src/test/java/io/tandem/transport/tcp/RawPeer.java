package io.tandem.transport.tcp;

import io.netty.buffer.Unpooled;
import io.tandem.codec.FrameFormat;
import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

/** A plain {@link Socket} speaking (or abusing) the wire protocol, to test a transport from outside. */
final class RawPeer implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    /** Over a socket already connected (a TLS socket, or one bound to a chosen source address). */
    RawPeer(Socket connected) throws IOException {
        socket = connected;
        if (connected.isClosed()) {
            // A TLS socket the target refused during the handshake: whether the refusal arrives while the
            // handshake still reads (the socket closes itself) or on the next read depends on timing, so
            // a closed socket behaves as one closed by the peer: writes fail, reads see the end of the stream.
            out = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    throw new SocketException("closed by the peer during the TLS handshake");
                }
            };
            in = InputStream.nullInputStream();
            return;
        }
        socket.setSoTimeout(50);
        out = socket.getOutputStream();
        in = socket.getInputStream();
    }

    RawPeer(Endpoint endpoint) throws IOException {
        this(endpoint, 0);
    }

    /** @param receiveBufferBytes a small receive buffer makes a peer that stops reading fill up sooner; 0 keeps the default */
    RawPeer(Endpoint endpoint, int receiveBufferBytes) throws IOException {
        socket = new Socket();
        if (receiveBufferBytes > 0) socket.setReceiveBufferSize(receiveBufferBytes);
        socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), 5_000);
        socket.setSoTimeout(50);
        out = socket.getOutputStream();
        in = socket.getInputStream();
    }

    void sendHandshake(String cluster, NodeId from, NodeId to) throws IOException {
        sendFrame(FrameFormat.TYPE_HANDSHAKE, new Handshake(cluster, from, to).encode());
    }

    /** The handshake of a contact connection (only contact messages may follow). */
    void sendContactHandshake(String cluster, NodeId from, NodeId to) throws IOException {
        sendFrame(FrameFormat.TYPE_HANDSHAKE, new Handshake(cluster, from, to, true).encode());
    }

    void sendFrame(byte type, byte[] body) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(FrameFormat.HEADER_BYTES + body.length);
        FrameFormat.writeHeader(frame, type, body.length);
        frame.put(body);
        sendRaw(frame.array());
    }

    /** A header announcing {@code length} body bytes, with no body. */
    void sendHeader(byte type, int length) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(FrameFormat.HEADER_BYTES);
        FrameFormat.writeHeader(header, type, length);
        sendRaw(header.array());
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /**
     * Writes {@code bytes} in pieces of {@code piece} bytes, each its own segment (no Nagle, a flush per
     * piece), so that the transport's reads end inside frames and inside headers.
     */
    void sendInPieces(byte[] bytes, int piece) throws IOException {
        socket.setTcpNoDelay(true);
        for (int at = 0; at < bytes.length; at += piece) {
            out.write(bytes, at, Math.min(piece, bytes.length - at));
            out.flush();
        }
    }

    /** Reads the transport's handshake reply. */
    Handshake readHandshake() throws Exception {
        byte[] headerBytes = readFully(FrameFormat.HEADER_BYTES);
        FrameFormat.Header header = FrameFormat.readHeader(ByteBuffer.wrap(headerBytes), Handshake.MAX_BODY_BYTES);
        if (header.type() != FrameFormat.TYPE_HANDSHAKE) throw new AssertionError("expected a handshake frame, got type " + header.type());
        byte[] body = readFully(header.length());
        return Handshake.decode(Unpooled.wrappedBuffer(body), body.length);
    }

    private byte[] readFully(int n) throws IOException {
        byte[] buf = new byte[n];
        int at = 0;
        long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
        while (at < n) {
            if (System.nanoTime() - deadline > 0) throw new AssertionError("timed out reading " + n + " bytes");
            try {
                int r = in.read(buf, at, n - at);
                if (r < 0) throw new AssertionError("connection closed after " + at + " of " + n + " bytes");
                at += r;
            } catch (SocketTimeoutException e) {
                // keep waiting until the deadline
            }
        }
        return buf;
    }

    /** Waits until the transport closes the connection (end of stream or reset), discarding input. */
    void awaitClosedByPeer() throws IOException {
        long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
        byte[] sink = new byte[4096];
        while (true) {
            if (System.nanoTime() - deadline > 0) throw new AssertionError("the transport did not close the connection within " + TestSupport.TIMEOUT);
            try {
                if (in.read(sink) < 0) return;
            } catch (SocketTimeoutException e) {
                // still open
            } catch (SocketException e) { // connection reset: closed too
                return;
            } catch (IOException e) { // a TLS alert (javax.net.ssl.SSLException): closed by the peer too
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
