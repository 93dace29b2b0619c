package io.tandem.sim;

/** A simulated client that sends requests to nodes and hears their answers. */
interface SimCaller {
    /** Names the client in traces. */
    int thread();

    /** The answer to attempt {@code opId}; late answers to attempts given up on are ignored. */
    void onReply(long opId, io.tandem.engine.NodeId from, SimClient.Outcome outcome);
}
