package io.tandem.engine;

import java.util.Arrays;
import java.util.Objects;

/**
 * A command whose position in the order is decided, handed to execution with
 * {@link EngineContext#deliver}. Execution applies entries strictly in {@code index} order; an
 * index may carry no command ({@link #noop}) when a protocol fills a hole.
 *
 * <p>The command is the range {@code [commandOffset, commandOffset + commandLength)} of
 * {@code commandBuffer}: an engine may hand over its log entry's own bytes with the command inside
 * them instead of copying the command out (issue 25: that copy was one of three copies of every value
 * on every replica before it reached the state machine). Nobody writes into the buffer: the engine
 * gives up writing into it, and execution only reads it. {@link #command()} gives the command alone.
 *
 * <p>The client session travels as its three numbers rather than a {@link ClientRequest.Session} (issue 25: a
 * session object per delivered command was 11 % of a Raft follower's allocation at 64 clients); {@link #session()}
 * builds one for callers off the hot path, and execution reads the numbers.
 *
 * @param index         position in the total order, starting at 1, without gaps
 * @param origin        the node whose client submitted it (that node completes the client's future)
 * @param requestId     the request id on {@code origin}
 * @param clientId      the client session's id, for exactly-once execution; 0 for none ({@link ClientRequest.Session#NONE})
 * @param sequence      the session's sequence number of this command
 * @param lowWatermark  the session's low watermark
 * @param commandBuffer the array holding the state machine command, or null for a no-op
 * @param commandOffset where the command starts in {@code commandBuffer}
 * @param commandLength the command's length in bytes
 */
public record Committed(long index, NodeId origin, long requestId, long clientId, long sequence, long lowWatermark,
                        byte[] commandBuffer, int commandOffset, int commandLength) {
    public Committed {
        if (index < 1) throw new IllegalArgumentException("index starts at 1, was " + index);
        ClientRequest.Session.check(clientId, sequence, lowWatermark);
        if (commandBuffer == null) {
            if (commandOffset != 0 || commandLength != 0) throw new IllegalArgumentException("a no-op has no command range");
        } else {
            Objects.checkFromIndexSize(commandOffset, commandLength, commandBuffer.length);
        }
    }

    /** A command that is a range of {@code commandBuffer}, with its session as an object. */
    public Committed(long index, NodeId origin, long requestId, ClientRequest.Session session,
                     byte[] commandBuffer, int commandOffset, int commandLength) {
        this(index, origin, requestId, session.clientId(), session.sequence(), session.lowWatermark(), commandBuffer, commandOffset, commandLength);
    }

    /** A command that is a whole array ({@code command} null: a no-op). */
    public Committed(long index, NodeId origin, long requestId, ClientRequest.Session session, byte[] command) {
        this(index, origin, requestId, session, command, 0, command == null ? 0 : command.length);
    }

    /** The client session (a new object each call, or {@link ClientRequest.Session#NONE}). */
    public ClientRequest.Session session() {
        return clientId == 0 ? ClientRequest.Session.NONE : new ClientRequest.Session(clientId, sequence, lowWatermark);
    }

    /** Whether the command has a client session (exactly-once execution applies), without building it. */
    public boolean hasSession() {
        return clientId != 0;
    }

    public static Committed noop(long index) {
        return new Committed(index, null, RequestIds.BACKGROUND, ClientRequest.Session.NONE, null);
    }

    public boolean isNoop() {
        return commandBuffer == null;
    }

    /**
     * The command alone, or null for a no-op: the buffer itself when the command fills it, else a copy
     * of its range (made at each call; execution's hot path reads the range instead).
     */
    public byte[] command() {
        if (commandBuffer == null) return null;
        if (commandOffset == 0 && commandLength == commandBuffer.length) return commandBuffer;
        return Arrays.copyOfRange(commandBuffer, commandOffset, commandOffset + commandLength);
    }
}
