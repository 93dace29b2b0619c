package io.tandem.codec;

/**
 * A message whose encoding ends with a run of bytes taken as they are from an array it references (a
 * block of a large payload). A transport may then send it without encoding those bytes into a frame
 * array first: {@link KryoCodec#encodeHead} encodes everything before them, and the transport copies the
 * head and then the run straight into its own send buffer (one copy of the run instead of two). The wire
 * bytes are those of {@link KryoCodec#encode}, so the receiver cannot tell the two apart.
 *
 * <p>The run's bytes must not change once the message is sent: the transport reads them later, on its I/O
 * thread. The serializer writes the run last with {@link KryoCodec#writeTrailing}; reading, it may keep the
 * run as a slice of the frame's array when {@link KryoCodec#ownsInput} says that array is the message's own.
 */
public interface TrailingBytes {
    /** The array the run is in, or null for none (then the head is the whole encoding). */
    byte[] trailingArray();

    int trailingOffset();

    int trailingLength();
}
