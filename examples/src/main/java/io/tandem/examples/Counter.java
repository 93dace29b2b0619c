package io.tandem.examples;

import io.tandem.statemachine.StateMachine;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * The state machine of the examples: a counter. A command adds its 8-byte amount and answers the
 * new total; a query answers the total. Deterministic, as every replicated state machine must be.
 */
public final class Counter implements StateMachine {
    private long total;

    public static byte[] add(long amount) {
        return ByteBuffer.allocate(8).putLong(amount).array();
    }

    public static long value(byte[] answer) {
        return ByteBuffer.wrap(answer).getLong();
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        total += ByteBuffer.wrap(command).getLong();
        return add(total);
    }

    @Override
    public byte[] query(byte[] query) {
        return add(total);
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        new DataOutputStream(out).writeLong(total);
    }

    @Override
    public void restore(InputStream in) throws IOException {
        total = new DataInputStream(in).readLong();
    }
}
