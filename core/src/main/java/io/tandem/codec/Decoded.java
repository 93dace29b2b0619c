package io.tandem.codec;

/**
 * The outcome of decoding untrusted bytes with a {@link BinarySerializer}: the value, or a rejection
 * that says what is wrong with the input. Malformed input is an expected outcome, not an error of
 * the decoder, so it is a value (like {@code RegionTable.Outcome}), never an exception.
 */
public sealed interface Decoded<T> {
    record Ok<T>(T value) implements Decoded<T> {}

    record Rejected<T>(String reason) implements Decoded<T> {}
}
