package io.tandem.protocols.raft;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Membership changes and leadership transfer encoded as ordinary commands, for entry points that
 * can only submit commands (the simulator's clients). Applications use the engine-neutral
 * {@code ReplicatedNode.admin(AdminRequest)} instead, which reaches {@link RaftEngine#onAdmin}
 * directly; both paths run the same change:
 *
 * <pre>{@code
 * node.submit(RaftAdmin.addLearner(NodeId.of("n4")));   // n4 starts receiving the log
 * node.submit(RaftAdmin.promote(NodeId.of("n4")));      // n4 votes once it has caught up
 * node.submit(RaftAdmin.remove(NodeId.of("n1")));
 * node.submit(RaftAdmin.transferLeadership(NodeId.of("n2")));
 * }</pre>
 *
 * <p>The engine recognizes the reserved {@link #MAGIC} prefix and never hands such a command to the
 * state machine. Send them to the leader; other nodes reject them with {@code Redirect}. A
 * membership change completes (with an empty result) when its configuration entry commits; a
 * transfer completes when the new leader's first entry commits. Changes are single-server and one
 * at a time (Raft thesis §4.1): a request made while another change is uncommitted, or before the
 * leader committed an entry of its term, fails with {@code Unavailable} and may be retried.
 */
public final class RaftAdmin {
    /** The reserved prefix of admin commands: a state machine command must not start with these bytes. */
    public static final byte[] MAGIC = "\0tandem-raft-admin\0".getBytes(StandardCharsets.US_ASCII);

    private static final byte ADD_LEARNER = 1, PROMOTE = 2, REMOVE = 3, TRANSFER = 4;

    private RaftAdmin() {}

    public static byte[] addLearner(NodeId node) {
        return encode(ADD_LEARNER, node);
    }

    public static byte[] promote(NodeId node) {
        return encode(PROMOTE, node);
    }

    public static byte[] remove(NodeId node) {
        return encode(REMOVE, node);
    }

    public static byte[] transferLeadership(NodeId node) {
        return encode(TRANSFER, node);
    }

    public static byte[] encode(AdminRequest request) {
        return switch (request) {
            case AdminRequest.AddLearner a -> addLearner(a.node());
            case AdminRequest.Promote p -> promote(p.node());
            case AdminRequest.Remove r -> remove(r.node());
            case AdminRequest.TransferLeadership t -> transferLeadership(t.node());
        };
    }

    /** The admin request in {@code payload}, or empty if it is an ordinary state machine command. */
    public static Optional<AdminRequest> decode(byte[] payload) {
        // The first byte alone rejects nearly every command (the leader asks this of each one; the range compare was
        // 3 % of its loop's samples at 16 clients, raft20); the full compare decides the rest.
        if (payload.length < MAGIC.length + 2 || payload[0] != MAGIC[0] || !Arrays.equals(payload, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) return Optional.empty();
        byte kind = payload[MAGIC.length];
        NodeId node;
        try {
            node = NodeId.of(new String(payload, MAGIC.length + 1, payload.length - MAGIC.length - 1, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(switch (kind) {
            case ADD_LEARNER -> new AdminRequest.AddLearner(node);
            case PROMOTE -> new AdminRequest.Promote(node);
            case REMOVE -> new AdminRequest.Remove(node);
            case TRANSFER -> new AdminRequest.TransferLeadership(node);
            default -> null;
        });
    }

    private static byte[] encode(byte kind, NodeId node) {
        byte[] name = node.value().getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(MAGIC, MAGIC.length + 1 + name.length);
        out[MAGIC.length] = kind;
        System.arraycopy(name, 0, out, MAGIC.length + 1, name.length);
        return out;
    }
}
