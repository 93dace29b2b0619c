package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Membership changes and leadership transfer, submitted as ordinary commands so they work through
 * every entry point ({@code ReplicatedNode.submit}, the simulator's clients, a CLI):
 *
 * <pre>{@code
 * node.submit(RaftAdmin.addLearner(NodeId.of("n4")));   // n4 starts receiving the log
 * node.submit(RaftAdmin.promote(NodeId.of("n4")));      // n4 votes once it has caught up
 * node.submit(RaftAdmin.remove(NodeId.of("n1")));
 * node.submit(RaftAdmin.transferLeadership(NodeId.of("n2")));
 * }</pre>
 *
 * <p>The engine recognizes the reserved {@link #MAGIC} prefix and never hands such a command to the
 * state machine. Send them to the leader; other nodes reject them with {@code NotLeader}. A
 * membership change completes (with an empty result) when its configuration entry commits; a
 * transfer completes when the new leader's first entry commits. Changes are single-server and one
 * at a time (Raft thesis §4.1): a request made while another change is uncommitted, or before the
 * leader committed an entry of its term, fails with {@code Unavailable} and may be retried.
 */
public final class RaftAdmin {
    /** The reserved prefix of admin commands: a state machine command must not start with these bytes. */
    public static final byte[] MAGIC = "\0tandem-raft-admin\0".getBytes(StandardCharsets.US_ASCII);

    /** A decoded admin command. */
    public sealed interface Command {
        NodeId node();
    }

    /** Adds a non-voting member that receives the log (Raft thesis §4.2.1). */
    public record AddLearner(NodeId node) implements Command {}

    /** Makes a caught-up learner a voter. */
    public record Promote(NodeId node) implements Command {}

    /** Removes a voter or learner; a leader that removes itself steps down once the change commits. */
    public record Remove(NodeId node) implements Command {}

    /** Hands leadership to a caught-up voter with TimeoutNow (Raft thesis §3.10). */
    public record TransferLeadership(NodeId node) implements Command {}

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

    public static byte[] encode(Command command) {
        return switch (command) {
            case AddLearner a -> addLearner(a.node());
            case Promote p -> promote(p.node());
            case Remove r -> remove(r.node());
            case TransferLeadership t -> transferLeadership(t.node());
        };
    }

    /** The admin command in {@code payload}, or empty if it is an ordinary state machine command. */
    public static Optional<Command> decode(byte[] payload) {
        if (payload.length < MAGIC.length + 2 || !Arrays.equals(payload, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) return Optional.empty();
        byte kind = payload[MAGIC.length];
        NodeId node;
        try {
            node = NodeId.of(new String(payload, MAGIC.length + 1, payload.length - MAGIC.length - 1, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(switch (kind) {
            case ADD_LEARNER -> new AddLearner(node);
            case PROMOTE -> new Promote(node);
            case REMOVE -> new Remove(node);
            case TRANSFER -> new TransferLeadership(node);
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
