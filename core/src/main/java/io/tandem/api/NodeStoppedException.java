package io.tandem.api;

/** The node is closed or stopped after a failure; it answers no more requests. */
public final class NodeStoppedException extends TandemException {
    public NodeStoppedException(String message) {
        super(message);
    }
}
