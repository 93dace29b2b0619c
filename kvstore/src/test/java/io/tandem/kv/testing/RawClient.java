package io.tandem.kv.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.transport.Endpoint;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/** A blocking client-protocol connection over a plain socket, to send exact (or broken) bytes. */
public final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    public RawClient(Endpoint server) throws IOException {
        this(plain(server));
    }

    /** Over a socket already connected (a TLS socket, or one from a chosen source address). */
    public RawClient(Socket connected) throws IOException {
        socket = connected;
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    private static Socket plain(Endpoint server) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(server.host(), server.port()), 2000);
        return s;
    }

    public void send(Request request) throws IOException {
        ByteBuf b = Unpooled.buffer();
        ClientWire.writeRequest(request, b);
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        sendRaw(bytes);
    }

    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    public Response receive() throws IOException {
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return ClientWire.readResponse(Unpooled.wrappedBuffer(body));
    }

    public Response call(Request request) throws IOException {
        send(request);
        return receive();
    }

    /** True once the server closed the connection (reads end of stream). */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (EOFException e) {
            return true;
        } catch (java.net.SocketException e) {
            return true; // reset by the server
        } catch (javax.net.ssl.SSLException e) {
            return true; // a TLS alert, then the end
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
