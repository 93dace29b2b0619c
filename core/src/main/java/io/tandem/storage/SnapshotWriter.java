package io.tandem.storage;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes the whole state of a state machine; {@code stateMachine::snapshot} fits
 * ({@link io.tandem.statemachine.StateMachine#snapshot}). The stream is closed by the storage.
 */
@FunctionalInterface
public interface SnapshotWriter {
    void writeTo(OutputStream out) throws IOException;
}
