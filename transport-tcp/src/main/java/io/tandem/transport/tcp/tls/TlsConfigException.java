package io.tandem.transport.tcp.tls;

/** TLS files that cannot be used; the message names the file and what to do, in one line. */
public final class TlsConfigException extends IllegalArgumentException {
    public TlsConfigException(String message) {
        super(message);
    }

    public TlsConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
