package io.tandem.engine;

/** Conventions for the request ids carried by every {@link ProtocolMessage}. */
public final class RequestIds {
    /** Traffic that no client request caused: heartbeats, elections, catch-up, resends. */
    public static final long BACKGROUND = 0L;

    private RequestIds() {}

    public static boolean isBackground(long requestId) {
        return requestId == BACKGROUND;
    }
}
