package io.tandem.engine;

/**
 * The outcome of one target of a {@link Region#pushWithCompletion}: {@code applied} means the
 * target received this push and every earlier push of ours to it, in order (derecho.md §2.5 R2 and
 * §8.4), and applied them to its copy unless it had frozen our row (its own rule, as with an RDMA
 * write into memory its owner no longer reads); false means it is not known to have received it
 * (the target crashed, is unreachable or partitioned away, was removed, or the connection broke),
 * as an RDMA completion with an error status. Engines read completions from {@link Regions#pollCompletions}, as from a completion queue.
 */
public record PushCompletion(long pushId, String region, NodeId target, boolean applied) {}
