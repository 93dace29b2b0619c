package io.tandem.kv.server;

/** A server setting is missing or invalid; the message names the setting and where it came from. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message, null, false, false);
    }
}
