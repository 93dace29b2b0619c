package io.tandem.api;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A message delivered by a {@link Channel}: who sent it, its position in the group's total order,
 * and its bytes.
 *
 * @param src      the sender
 * @param position the message's index in the total order every member delivers
 */
public record Message(Address src, long position, byte[] payload) {
    public Message {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(payload, "payload");
    }

    /** The payload decoded as UTF-8 text. */
    public String text() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "Message[src=" + src + ", position=" + position + ", " + payload.length + " bytes]";
    }
}
