package io.tandem.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A message delivered by a {@link Channel}: who sent it, its position in the group's total order,
 * and its bytes, which are {@code length} bytes of {@code array} from {@code offset} (as JGroups'
 * {@code Message.getArray/getOffset/getLength}): the channel hands over the bytes it received
 * without copying them out of the command they arrived in. Read them in place, never write them:
 * the array may be shared with the node's log (a Raft node keeps its entries). {@link #payload()}
 * gives them as an array of exactly their length (a copy unless the message spans its whole array).
 *
 * @param src      the sender
 * @param position the message's index in the total order every member delivers
 * @param array    the array holding the payload (read-only: it may be shared with the node's log)
 * @param offset   where the payload starts in {@code array}
 * @param length   the payload's length in bytes
 */
public record Message(Address src, long position, byte[] array, int offset, int length) {
    public Message {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(array, "array");
        Objects.checkFromIndexSize(offset, length, array.length);
    }

    /** A message whose payload is the whole of {@code payload}. */
    public Message(Address src, long position, byte[] payload) {
        this(src, position, payload, 0, payload.length);
    }

    /** The payload as an array of exactly its bytes: {@link #array()} itself if it holds nothing else, else a copy. */
    public byte[] payload() {
        return offset == 0 && length == array.length ? array : Arrays.copyOfRange(array, offset, offset + length);
    }

    /** The payload decoded as UTF-8 text. */
    public String text() {
        return new String(array, offset, length, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "Message[src=" + src + ", position=" + position + ", " + length + " bytes]";
    }
}
