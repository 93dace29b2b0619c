package io.tandem.api;

import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.statemachine.CommandResult;
import io.tandem.statemachine.StateMachine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs a channel {@link Receiver} as the replicated state machine: each ordered command is a
 * message, delivered to {@link Receiver#receive}; snapshots are the receiver's state transfer.
 * A command is the sender's name and the payload ({@link #encode}), or, over a protocol that names
 * each command's sender as its origin ({@link Protocol#deliversSenderAsOrigin}), the payload alone,
 * its sender the origin (the channel then sends the application's array as it is: no copy per send).
 * Every member of a group runs the same protocol, so all read their commands the same way.
 */
final class ReceiverStateMachine implements StateMachine {
    private final Receiver receiver;
    /** Whether commands are payloads alone and the sender is each command's origin (see the class comment). */
    private final boolean senderIsOrigin;

    ReceiverStateMachine(Receiver receiver, boolean senderIsOrigin) {
        this.receiver = receiver;
        this.senderIsOrigin = senderIsOrigin;
    }

    /** The bytes a sender's commands start with: its name's length and its UTF-8 name (computed once per channel). */
    static byte[] prefix(NodeId sender) {
        byte[] name = sender.value().getBytes(StandardCharsets.UTF_8);
        byte[] prefix = new byte[1 + name.length];
        prefix[0] = (byte) name.length;
        System.arraycopy(name, 0, prefix, 1, name.length);
        return prefix;
    }

    /** A command: {@code prefix} (see {@link #prefix}), then the payload. */
    static byte[] encode(byte[] prefix, byte[] payload) {
        byte[] command = new byte[prefix.length + payload.length];
        System.arraycopy(prefix, 0, command, 0, prefix.length);
        System.arraycopy(payload, 0, command, prefix.length, payload.length);
        return command;
    }

    /** Senders seen so far, by the UTF-8 bytes of their names (a group has few): no String and no name check per message. */
    private byte[][] senderNames = new byte[0][];
    private Address[] senders = new Address[0];

    private Address sender(byte[] command, int nameLength) {
        for (int i = 0; i < senders.length; i++) {
            if (java.util.Arrays.equals(senderNames[i], 0, senderNames[i].length, command, 1, 1 + nameLength)) return senders[i];
        }
        Address a = Address.of(new String(command, 1, nameLength, StandardCharsets.UTF_8));
        if (senders.length < 64) {
            senderNames = java.util.Arrays.copyOf(senderNames, senders.length + 1);
            senderNames[senders.length] = java.util.Arrays.copyOfRange(command, 1, 1 + nameLength);
            senders = java.util.Arrays.copyOf(senders, senders.length + 1);
            senders[senders.length - 1] = a;
        }
        return a;
    }

    /** The channel's address of an origin, kept per sender as {@link #sender(byte[], int)} keeps names (no object per message). */
    private NodeId[] origins = new NodeId[0];
    private Address[] originAddresses = new Address[0];

    private Address sender(NodeId origin) {
        for (int i = 0; i < origins.length; i++) {
            if (origins[i] == origin || origins[i].equals(origin)) return originAddresses[i];
        }
        Address a = new Address(origin);
        if (origins.length < 64) {
            origins = java.util.Arrays.copyOf(origins, origins.length + 1);
            origins[origins.length - 1] = origin;
            originAddresses = java.util.Arrays.copyOf(originAddresses, originAddresses.length + 1);
            originAddresses[originAddresses.length - 1] = a;
        }
        return a;
    }

    /**
     * The executor's call. With the sender as origin the payload is the command's range as it is, handed over in
     * place like a named command's (the sender's own message is the array its application sent). Without, the
     * name in front of the payload says who sent it and the origin is not read: over a leader's log it is the
     * leader for a forwarded command, not the sender.
     */
    @Override
    public CommandResult applyForResult(long index, NodeId origin, byte[] buffer, int offset, int length) {
        if (!senderIsOrigin) return applyForResult(index, buffer, offset, length);
        if (origin == null) {
            // Protocol#deliversSenderAsOrigin promises an origin with every command; an engine that broke it cannot
            // have its messages attributed to anyone, and a made-up sender would be delivered as a fact.
            throw new IllegalStateException("command " + index + " has no origin, and the channel's protocol promised its sender as one");
        }
        receiver.receive(new Message(sender(origin), index, buffer, offset, length));
        return new Position(index);
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        receive(index, command);
        return position(index);
    }

    /**
     * {@link #apply}, with the position as the result unencoded: every member applies every message, but only the
     * sender's own message has a waiting send, and the channel's send reads the index from it directly
     * ({@link ReplicatedChannel.Sent}); the 8 bytes are made only if someone asks ({@link Position#encode}). Saves the
     * result's array and its wrapper per message on every member. Safe under {@link CommandResult}'s contract: the
     * result is an immutable value, a function of the command's position only, and encodes to the bytes
     * {@link #apply} returns.
     */
    @Override
    public CommandResult applyForResult(long index, byte[] command) {
        receive(index, command);
        return new Position(index);
    }

    private void receive(long index, byte[] command) {
        // Without an origin a payload alone says nothing of its sender: only the executor's call above reads those.
        if (senderIsOrigin) throw new IllegalStateException("command " + index + " applied without its origin, and the channel's commands carry no sender name");
        int nameLength = command[0] & 0xFF;
        Address src = sender(command, nameLength);
        // The payload is handed over in place, after the sender's name: no copy per delivered message (at 8 KiB
        // this copy and its allocation were a fifth of the benchmark's samples). The array may be shared with the
        // engine's log (Raft keeps its entries), so Message documents it as read-only; payload() copies.
        receiver.receive(new Message(src, index, command, 1 + nameLength, command.length - 1 - nameLength));
    }

    /** A delivered message's position as its command's result: {@link #position} when encoded. */
    record Position(long index) implements CommandResult {
        @Override
        public byte[] encode() {
            return position(index);
        }
    }

    /** A delivered command's result: its position, 8 bytes big-endian (no {@code ByteBuffer} per message). */
    static byte[] position(long index) {
        byte[] r = new byte[Long.BYTES];
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            r[i] = (byte) index;
            index >>>= 8;
        }
        return r;
    }

    /** The position {@link #position(long)} encoded. */
    static long positionOf(byte[] result) {
        long index = 0;
        for (int i = 0; i < Long.BYTES; i++) index = index << 8 | (result[i] & 0xFF);
        return index;
    }

    @Override
    public byte[] query(byte[] query) {
        throw new UnsupportedOperationException("a channel has no queries");
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        receiver.getState(out);
    }

    @Override
    public void restore(InputStream in) throws IOException {
        receiver.setState(in);
    }
}
