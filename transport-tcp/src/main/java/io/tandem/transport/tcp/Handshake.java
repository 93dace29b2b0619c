package io.tandem.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.tandem.engine.NodeId;
import java.nio.charset.StandardCharsets;

/**
 * The body of the {@code TYPE_HANDSHAKE} frame that opens every connection, in both directions:
 * the dialer names itself and the member it meant to reach, the acceptor answers with the
 * reverse. Hand-written rather than Kryo so it stays readable by any version of any registry.
 *
 * <pre>
 *   wireVersion u16
 *   cluster     u16 length + UTF-8
 *   from        u16 length + UTF-8 (a NodeId)
 *   to          u16 length + UTF-8 (a NodeId)
 *   kind        u8, only on a contact connection: 1 (absent: a member connection)
 * </pre>
 *
 * <p>A <b>contact</b> connection ({@code contact} true) is dialed by a known member identity that
 * is not (or may not be) in the other side's current view, to carry only contact messages (join
 * requests and the like, {@link io.tandem.engine.ContactMessage}); the direction rule of member
 * connections does not apply to it. A member handshake is byte for byte the one of before, so a
 * node without contact support still talks to a node with it; it refuses contact dials as malformed.
 */
record Handshake(String cluster, NodeId from, NodeId to, boolean contact) {
    /** The kind byte of a contact handshake. */
    static final int KIND_CONTACT = 1;

    /** A member connection's handshake. */
    Handshake(String cluster, NodeId from, NodeId to) {
        this(cluster, from, to, false);
    }

    /** Version of the connection protocol (handshake, frame types and their bodies). */
    static final int WIRE_VERSION = 1;
    /** A handshake body is never larger: an unauthenticated peer cannot make us buffer more. */
    static final int MAX_BODY_BYTES = 1024;
    /** Longest cluster name (UTF-8 bytes), so that any handshake fits {@link #MAX_BODY_BYTES}. */
    static final int MAX_CLUSTER_NAME_BYTES = 255;

    /** Why a handshake was refused; the {@code reason} tag of {@code tandem.transport.handshake.rejections}. */
    enum Rejection {
        MALFORMED("malformed"),
        VERSION("version"),
        CLUSTER("cluster"),
        UNKNOWN_MEMBER("unknown-member"),
        WRONG_TARGET("wrong-target"),
        WRONG_DIRECTION("wrong-direction"),
        UNEXPECTED_MEMBER("unexpected-member"),
        NOT_A_HANDSHAKE("not-a-handshake"),
        TIMEOUT("timeout"),
        /** The TLS handshake failed: no certificate, one of another CA, expired, or plaintext to a TLS port. */
        TLS("tls"),
        /** The peer's certificate does not name the member it claims to be. */
        IDENTITY("identity");

        final String tag;

        Rejection(String tag) {
            this.tag = tag;
        }
    }

    /** A handshake that cannot be read or speaks another wire version. */
    static final class InvalidHandshakeException extends Exception {
        final Rejection reason;

        InvalidHandshakeException(Rejection reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }

    byte[] encode() {
        byte[] c = cluster.getBytes(StandardCharsets.UTF_8);
        byte[] f = from.value().getBytes(StandardCharsets.UTF_8);
        byte[] t = to.value().getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[2 + 2 + c.length + 2 + f.length + 2 + t.length + (contact ? 1 : 0)];
        int at = putU16(out, 0, WIRE_VERSION);
        at = putString(out, at, c);
        at = putString(out, at, f);
        at = putString(out, at, t);
        if (contact) out[at] = (byte) KIND_CONTACT;
        return out;
    }

    /** Reads a handshake body of {@code length} bytes at the reader index of {@code in}. */
    static Handshake decode(ByteBuf in, int length) throws InvalidHandshakeException {
        int end = in.readerIndex() + length;
        if (length < 2) throw new InvalidHandshakeException(Rejection.MALFORMED, "handshake body of " + length + " bytes is too short");
        int version = in.readUnsignedShort();
        if (version != WIRE_VERSION) {
            throw new InvalidHandshakeException(Rejection.VERSION, "peer speaks wire version " + version + ", this node speaks " + WIRE_VERSION);
        }
        String cluster = readString(in, end, "cluster");
        NodeId from = readNodeId(in, end, "from");
        NodeId to = readNodeId(in, end, "to");
        boolean contact = false;
        if (end - in.readerIndex() == 1) {
            int kind = in.readUnsignedByte();
            if (kind != KIND_CONTACT) throw new InvalidHandshakeException(Rejection.MALFORMED, "handshake kind " + kind + " is not " + KIND_CONTACT + " (contact)");
            contact = true;
        }
        if (in.readerIndex() != end) throw new InvalidHandshakeException(Rejection.MALFORMED, "handshake has " + (end - in.readerIndex()) + " trailing bytes");
        return new Handshake(cluster, from, to, contact);
    }

    private static NodeId readNodeId(ByteBuf in, int end, String field) throws InvalidHandshakeException {
        String text = readString(in, end, field);
        try {
            return NodeId.of(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidHandshakeException(Rejection.MALFORMED, "handshake field '" + field + "': " + e.getMessage());
        }
    }

    private static String readString(ByteBuf in, int end, String field) throws InvalidHandshakeException {
        if (end - in.readerIndex() < 2) throw new InvalidHandshakeException(Rejection.MALFORMED, "handshake is truncated before field '" + field + "'");
        int len = in.readUnsignedShort();
        if (len > end - in.readerIndex()) {
            throw new InvalidHandshakeException(Rejection.MALFORMED, "handshake field '" + field + "' claims " + len + " bytes but " + (end - in.readerIndex()) + " remain");
        }
        String s = in.toString(in.readerIndex(), len, StandardCharsets.UTF_8);
        in.skipBytes(len);
        return s;
    }

    private static int putString(byte[] out, int at, byte[] s) {
        at = putU16(out, at, s.length);
        System.arraycopy(s, 0, out, at, s.length);
        return at + s.length;
    }

    private static int putU16(byte[] out, int at, int value) {
        out[at] = (byte) (value >>> 8);
        out[at + 1] = (byte) value;
        return at + 2;
    }
}
