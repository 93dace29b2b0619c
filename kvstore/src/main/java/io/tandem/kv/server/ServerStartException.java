package io.tandem.kv.server;

/** The server could not start; the message says which port, directory or setting is at fault. */
public final class ServerStartException extends RuntimeException {
    public ServerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
