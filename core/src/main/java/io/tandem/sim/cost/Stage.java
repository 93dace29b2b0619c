package io.tandem.sim.cost;

/**
 * The threads of one node that the cost model charges, as the real runtime has them (DESIGN §2): the
 * transport's I/O thread (decoding, encoding, socket calls), the protocol loop (the engine's handlers),
 * the execution thread (the state machine) and the storage thread. Each is a FIFO server of one or more threads; all
 * of a node's stages share the cores of the host the node runs on.
 */
public enum Stage {
    /** Transport I/O: receive and decode, encode and send, client connections. */
    IO,
    /** The protocol loop: one engine handler per event. */
    LOOP,
    /** Execution of ordered commands (state machine apply, reads, snapshots). */
    EXEC,
    /** The storage thread: writing and syncing the log (its CPU per sync; the sync's latency is the disk's). */
    DISK
}
