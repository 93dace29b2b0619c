package io.tandem.runtime;

import io.tandem.statemachine.CommandResult;

/**
 * Where the answer to a command submitted with {@link NodeRuntime.SubmitBatch#submit(byte[],
 * io.tandem.engine.ClientRequest.Session, RequestAnswer)} goes, instead of a future (issue 25: a
 * server that answers each put from the thread that completes it needs no future stages per put).
 *
 * <p>Exactly one of the two methods is called, once, on the thread that completes the request
 * (execution for an executed command; the loop for a rejection, a timeout or another member's
 * answer; whoever stops the node). Neither may block or throw.
 */
public interface RequestAnswer {
    /**
     * The command's result: for a command executed here, the state machine's result as it returned it, not
     * encoded yet, on the execution thread, where {@link CommandResult#encode} may be called (its contract); a
     * result handed on to another thread unencoded must be of a type that is safe to read there (the KV store's
     * {@code KvResult} refers only to arrays nobody writes). Else the bytes (a duplicate, a session lookup,
     * another member's answer).
     */
    void completed(CommandResult result);

    /** The command failed: the same exceptions the future of {@link NodeRuntime#submit} fails with. */
    void failed(Throwable error);
}
