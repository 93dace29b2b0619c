package io.tandem.protocols.unreplicated;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The engine's format inside {@code LogEntry.payload}: a version byte, the request id, the session (client id,
 * sequence) and the command bytes up to the end. The origin is not stored: the only member is always the origin.
 * The request id is kept so that a restarted node re-delivers entries with the ids of its earlier life, which the
 * runtime never confuses with new requests (request ids of a node start at a random point).
 */
final class EntryCodec {
    /** Version 2 adds the session's low watermark; version 1 entries are still read. */
    static final byte VERSION = 2;
    static final byte VERSION_1 = 1;
    static final int HEADER_BYTES = 1 + 8 + 8 + 8 + 8;
    static final int HEADER_BYTES_1 = 1 + 8 + 8 + 8;

    private EntryCodec() {}

    static byte[] encode(long requestId, ClientRequest.Session session, byte[] command) {
        return ByteBuffer.allocate(HEADER_BYTES + command.length)
                .put(VERSION).putLong(requestId).putLong(session.clientId()).putLong(session.sequence()).putLong(session.lowWatermark()).put(command)
                .array();
    }

    /** @throws IllegalStateException if {@code payload} is not an entry of this format (a log of another protocol) */
    static Committed decode(long index, NodeId origin, byte[] payload) {
        boolean v1 = payload.length >= HEADER_BYTES_1 && payload[0] == VERSION_1;
        if (!v1 && (payload.length < HEADER_BYTES || payload[0] != VERSION)) {
            throw new IllegalStateException("log entry " + index + " is not an unreplicated-engine entry (" + payload.length
                    + " bytes, version " + (payload.length == 0 ? "none" : payload[0]) + "): was this data directory written by another protocol?");
        }
        ByteBuffer in = ByteBuffer.wrap(payload);
        in.get();
        long requestId = in.getLong();
        ClientRequest.Session session = v1
                ? new ClientRequest.Session(in.getLong(), in.getLong())
                : new ClientRequest.Session(in.getLong(), in.getLong(), in.getLong());
        return new Committed(index, origin, requestId, session, Arrays.copyOfRange(payload, v1 ? HEADER_BYTES_1 : HEADER_BYTES, payload.length));
    }
}
