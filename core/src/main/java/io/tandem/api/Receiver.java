package io.tandem.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Callbacks of a {@link Channel}, named as in JGroups; every method has a default. Called on the
 * channel's execution thread, one at a time and in the group's total order, so a receiver that
 * changes state only in {@link #receive} is a replicated state machine: every member sees the same
 * messages in the same order. {@link #getState}/{@link #setState} move that state to a member that
 * falls behind (state transfer through snapshots).
 */
public interface Receiver {
    default void receive(Message message) {}

    default void viewAccepted(View view) {}

    /** Writes the receiver's state, for a member that needs to catch up. */
    default void getState(OutputStream out) throws IOException {}

    /** Replaces the receiver's state with one written by {@link #getState}. */
    default void setState(InputStream in) throws IOException {}
}
