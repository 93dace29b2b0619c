package io.tandem.api;

import io.tandem.engine.NodeId;
import io.tandem.statemachine.StateMachine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Runs a channel {@link Receiver} as the replicated state machine: each ordered command is a
 * message (sender name + payload), delivered to {@link Receiver#receive}; snapshots are the
 * receiver's state transfer.
 */
final class ReceiverStateMachine implements StateMachine {
    private final Receiver receiver;

    ReceiverStateMachine(Receiver receiver) {
        this.receiver = receiver;
    }

    static byte[] encode(NodeId sender, byte[] payload) {
        byte[] name = sender.value().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + name.length + payload.length).put((byte) name.length).put(name).put(payload).array();
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

    @Override
    public byte[] apply(long index, byte[] command) {
        int nameLength = command[0] & 0xFF;
        Address src = sender(command, nameLength);
        byte[] payload = new byte[command.length - 1 - nameLength];
        System.arraycopy(command, 1 + nameLength, payload, 0, payload.length);
        receiver.receive(new Message(src, index, payload));
        return ByteBuffer.allocate(Long.BYTES).putLong(index).array();
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
