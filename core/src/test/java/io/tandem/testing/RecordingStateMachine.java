package io.tandem.testing;

import io.tandem.statemachine.StateMachine;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Appends every command as text to a list; the result of a command is the list's size; a query returns the list joined. */
public final class RecordingStateMachine implements StateMachine {
    public final List<String> applied = new CopyOnWriteArrayList<>();

    @Override
    public byte[] apply(long index, byte[] command) {
        applied.add(new String(command, StandardCharsets.UTF_8));
        return Integer.toString(applied.size()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] query(byte[] query) {
        return String.join(",", applied).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(applied.size());
        for (String s : applied) data.writeUTF(s);
        data.flush();
    }

    @Override
    public void restore(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int n = data.readInt();
        List<String> restored = new ArrayList<>();
        for (int i = 0; i < n; i++) restored.add(data.readUTF());
        applied.clear();
        applied.addAll(restored);
    }
}
