package io.tandem.peers.sofajraft;

import java.io.Serial;
import java.io.Serializable;

/**
 * The client's put, sent over Bolt. Bolt serializes a plain {@link Serializable} object with Hessian (its default
 * for non-protobuf payloads), which keeps this adapter free of generated protobuf classes; a class with mutable
 * fields and a no-argument constructor is what Hessian expects.
 */
public final class PutRequest implements Serializable {
    @Serial private static final long serialVersionUID = 1L;

    private byte[] key;
    private byte[] value;

    public PutRequest() {
    }

    PutRequest(byte[] key, byte[] value) {
        this.key = key;
        this.value = value;
    }

    byte[] key() {
        return key;
    }

    byte[] value() {
        return value;
    }
}
