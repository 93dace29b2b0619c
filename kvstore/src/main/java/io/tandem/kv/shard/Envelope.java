package io.tandem.kv.shard;

import io.tandem.engine.ClientRequest;
import java.nio.ByteBuffer;

/**
 * A client request as it travels through a shard's ordered multicast: what it is (command or read),
 * who may answer it (the sending process's incarnation and request id) and its session, then the KV
 * command or query bytes. Every member of the shard applies it; only the incarnation that sent it
 * answers the client.
 *
 * @param incarnation a random number per engine start: a request id of an earlier incarnation of this
 *                    member, replayed from its log after a restart, never completes a request of this one
 */
record Envelope(boolean read, long incarnation, long requestId, ClientRequest.Session session, byte[] payload) {
    /** Bytes before the payload: kind, incarnation, request id, client id, sequence, low watermark. */
    static final int HEADER = 1 + 5 * Long.BYTES;

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(HEADER + payload.length);
        b.put(read ? (byte) 'R' : (byte) 'C').putLong(incarnation).putLong(requestId)
                .putLong(session.clientId()).putLong(session.sequence()).putLong(session.lowWatermark()).put(payload);
        return b.array();
    }

    /** The envelope in {@code bytes}, or null if they are not one (a value, not an exception: they come off the wire or a log). */
    static Envelope decode(byte[] bytes) {
        if (bytes.length < HEADER || (bytes[0] != 'R' && bytes[0] != 'C')) return null;
        ByteBuffer b = ByteBuffer.wrap(bytes);
        boolean read = b.get() == 'R';
        long incarnation = b.getLong();
        long requestId = b.getLong();
        long clientId = b.getLong();
        long sequence = b.getLong();
        long low = b.getLong();
        ClientRequest.Session session;
        if (clientId == 0 && sequence == 0 && low == 0) session = ClientRequest.Session.NONE;
        else if (clientId == 0 || sequence < 1 || low < 0 || low > sequence) return null;
        else session = new ClientRequest.Session(clientId, sequence, low);
        byte[] payload = new byte[b.remaining()];
        b.get(payload);
        return new Envelope(read, incarnation, requestId, session, payload);
    }
}
