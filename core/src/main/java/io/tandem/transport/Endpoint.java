package io.tandem.transport;

/** A host and port a member listens on, written {@code host:port}. */
public record Endpoint(String host, int port) {
    /** For members of an in-JVM group, which have no network address. */
    public static final Endpoint UNADDRESSED = new Endpoint("unaddressed.invalid", 1);

    public Endpoint {
        if (host == null || host.isBlank()) throw new IllegalArgumentException("endpoint host is empty");
        if (port < 1 || port > 65535) throw new IllegalArgumentException("port " + port + " is outside 1-65535");
    }

    /** Parses {@code host:port} (IPv6 as {@code [::1]:7001}). */
    public static Endpoint parse(String text) {
        if (text == null) throw new IllegalArgumentException("endpoint is missing");
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) throw new IllegalArgumentException("endpoint '" + text + "' is not host:port");
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("endpoint '" + text + "' has a non-numeric port");
        }
        return new Endpoint(host, port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
