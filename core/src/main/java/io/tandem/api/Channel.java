package io.tandem.api;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * A group channel in JGroups' vocabulary, with total order: every member's {@link Receiver}
 * gets every message in the same order (the replication engine orders them), and a member that
 * falls behind catches up through {@link Receiver#getState}/{@link Receiver#setState}. Build one
 * with {@link Tandem#channel()}.
 */
public interface Channel extends AutoCloseable {
    Address address();

    /** The view this member's receiver accepted last ({@link Receiver#viewAccepted}). */
    View view();

    /**
     * The replicated node this channel runs on: its engine's status, and membership changes
     * ({@link ReplicatedNode#admin}), which reach every receiver as new views.
     */
    ReplicatedNode node();

    /**
     * Sends {@code payload} to the whole group. Completes with the message's position in the
     * total order once it has been delivered to this member's receiver.
     *
     * <p>The channel may keep {@code payload} itself, not a copy (as JGroups' messages keep their
     * arrays): the engine copies it once, into what it sends, after this call returns, and this
     * member's receiver may be handed this very array. Do not write into it after the call; send
     * the same unchanged array as often as you like.
     */
    CompletableFuture<Long> send(byte[] payload);

    default CompletableFuture<Long> send(String text) {
        return send(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    void close();
}
