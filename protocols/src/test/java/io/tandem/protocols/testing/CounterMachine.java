package io.tandem.protocols.testing;

import io.tandem.statemachine.StateMachine;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/** Adds 1 to a counter per command and answers the new value: a command applied twice shows. */
public final class CounterMachine implements StateMachine {
    private volatile long value;

    public long value() {
        return value;
    }

    /** The counter value a command or query answered. */
    public static long decode(byte[] result) {
        return ByteBuffer.wrap(result).getLong();
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        return ByteBuffer.allocate(8).putLong(++value).array();
    }

    @Override
    public byte[] query(byte[] query) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        new DataOutputStream(out).writeLong(value);
    }

    @Override
    public void restore(InputStream in) throws IOException {
        value = new DataInputStream(in).readLong();
    }
}
