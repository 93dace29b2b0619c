package io.tandem.protocols.copilot;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What Copilot stores with a snapshot of the state machine (its {@link io.tandem.engine.SnapshotTag}
 * data): where in the two logs the snapshot ends and what execution needs to go on from there exactly
 * as a replica that ran every slot before it.
 *
 * <p>A snapshot is always taken at a slot boundary: the engine asks for one right after it ran whole
 * slots, and execution applies deliveries in the order they were made, so the state machine's applied
 * index is then the engine's delivered index ({@link CopilotEngine#snapshotTag}).
 *
 * @param deliveredIndex the last execution index the snapshot contains
 * @param cursor0        the first slot of log 0 not run (every slot below it ran: committed, executed)
 * @param cursor1        the same for log 1
 * @param highest0       the highest slot of log 0 the snapshotting replica knew to exist (a restarted
 *                       pilot resumes above it, §3.3)
 * @param highest1       the same for log 1
 * @param sessions       which commands ran and in which logs ({@link ExecutedCommands}): without it an
 *                       installing replica would run the other pilot's copy of a command that already ran
 */
record Checkpoint(long deliveredIndex, long cursor0, long cursor1, long highest0, long highest1, ExecutedCommands sessions) {
    private static final byte FORMAT = 1;

    Checkpoint {
        if (deliveredIndex < 0 || cursor0 < 0 || cursor1 < 0) throw new IllegalArgumentException("checkpoint at " + deliveredIndex + " cursor " + cursor0 + "/" + cursor1);
        if (highest0 < cursor0 - 1 || highest1 < cursor1 - 1) throw new IllegalArgumentException("checkpoint highest slots " + highest0 + "/" + highest1 + " below its cursor");
    }

    long cursor(int log) {
        return log == 0 ? cursor0 : cursor1;
    }

    long highest(int log) {
        return log == 0 ? highest0 : highest1;
    }

    byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(FORMAT);
            out.writeLong(deliveredIndex);
            out.writeLong(cursor0);
            out.writeLong(cursor1);
            out.writeLong(highest0);
            out.writeLong(highest1);
            sessions.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes {@link #encode}'s bytes; throws IllegalArgumentException on anything else (a snapshot of another engine, a damaged one). */
    static Checkpoint decode(byte[] data) {
        if (data == null || data.length == 0) throw new IllegalArgumentException("no Copilot checkpoint in the snapshot");
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            int format = in.readByte();
            if (format != FORMAT) throw new IllegalArgumentException("unknown checkpoint format " + format);
            Checkpoint c = new Checkpoint(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), ExecutedCommands.read(in));
            if (in.available() != 0) throw new IllegalArgumentException(in.available() + " bytes after the checkpoint");
            return c;
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated checkpoint", e);
        }
    }
}
