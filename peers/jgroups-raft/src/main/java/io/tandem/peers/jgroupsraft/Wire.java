package io.tandem.peers.jgroupsraft;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The thin client protocol between the load driver and a replica's {@link PutServer}, length-prefixed frames
 * over one TCP connection, many requests in flight (matched by id):
 * <pre>
 *   request:  | length (int) | request id (long) | key length (int) | key | value |
 *   response: | length (int) | request id (long) | status (byte) | leader index (int) | error message (UTF-8) |
 * </pre>
 * The request's bytes after the id are exactly the Raft log entry ({@link #putPayload}), so the server hands
 * them to {@code RaftHandle.setAsync} without copying. The leader index (-1: unknown) lets the client send its
 * next puts straight to the leader.
 */
final class Wire {
    static final byte OK = 0;
    static final byte FAILED = 1;
    static final int MAX_FRAME = 64 << 20;
    static final int REQUEST_HEADER = 8;

    record Response(long id, byte status, int leader, String error) {}

    private Wire() {}

    /** A whole request frame, length prefix included. */
    static byte[] request(long id, byte[] key, byte[] value) {
        int length = REQUEST_HEADER + 4 + key.length + value.length;
        ByteBuffer frame = ByteBuffer.allocate(4 + length);
        frame.putInt(length).putLong(id).putInt(key.length).put(key).put(value);
        return frame.array();
    }

    /** A whole response frame, length prefix included. */
    static byte[] response(long id, byte status, int leader, String error) {
        byte[] message = error == null ? new byte[0] : error.getBytes(StandardCharsets.UTF_8);
        int length = 8 + 1 + 4 + message.length;
        ByteBuffer frame = ByteBuffer.allocate(4 + length);
        frame.putInt(length).putLong(id).put(status).putInt(leader).put(message);
        return frame.array();
    }

    /** Reads one frame's body (without its length prefix); throws {@link java.io.EOFException} at the end of the stream. */
    static byte[] readFrame(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_FRAME) throw new IOException("frame length " + length + " out of range");
        byte[] body = new byte[length];
        in.readFully(body);
        return body;
    }

    static long requestId(byte[] body) {
        return ByteBuffer.wrap(body, 0, 8).getLong();
    }

    static Response parseResponse(byte[] body) {
        ByteBuffer b = ByteBuffer.wrap(body);
        long id = b.getLong();
        byte status = b.get();
        int leader = b.getInt();
        String error = b.hasRemaining() ? new String(body, b.position(), b.remaining(), StandardCharsets.UTF_8) : null;
        return new Response(id, status, leader, error);
    }

    /** The Raft log entry of one put: key length, key, value. */
    static byte[] putPayload(byte[] key, byte[] value) {
        return ByteBuffer.allocate(4 + key.length + value.length).putInt(key.length).put(key).put(value).array();
    }
}
