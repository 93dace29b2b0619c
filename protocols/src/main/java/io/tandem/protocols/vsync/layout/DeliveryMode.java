package io.tandem.protocols.vsync.layout;

/** How a shard delivers its messages (derecho.md §1.5). */
public enum DeliveryMode {
    /** As soon as received, in each sender's order, no order across senders; no cleanup on failure. */
    RAW,
    /** In the round-robin total order, once every shard member holds the message; in memory. */
    ORDERED,
    /** Ordered, then logged; a message counts as durable once every shard member persisted it. */
    DURABLE
}
