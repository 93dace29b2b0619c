package io.tandem.engine;

/**
 * The outcome of one target of a {@link Region#pushWithCompletion}: {@code applied} means the
 * target applied this push and every earlier push of ours to it (per-writer order, derecho.md §2.5
 * R2 and §8.4); false means it is not known to have been (the target crashed, is unreachable or
 * partitioned away, was removed, or its connection broke), as an RDMA completion with an error
 * status. Engines read completions from {@link Regions#pollCompletions}, as from a completion queue.
 */
public record PushCompletion(long pushId, String region, NodeId target, boolean applied) {}
