package io.tandem.codec;

/**
 * A message whose serializer knows, before writing, how many bytes it writes (after the class id).
 * {@link KryoCodec#encode} then writes a large one into an array of exactly that size and returns the
 * array itself: no output buffer growing while it writes (each growth copies what was written) and no
 * copy into the result. A wrong number costs only that saving: the codec then copies as usual.
 */
public interface KnownEncodedSize {
    /** The exact number of bytes this message's serializer writes. */
    int encodedBodyBytes();
}
