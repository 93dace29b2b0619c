package io.tandem.jepsen.workload;

/** A workload spec file that cannot be used; the message names the file and the key at fault. */
public final class SpecException extends RuntimeException {
    public SpecException(String message) {
        super(message);
    }
}
