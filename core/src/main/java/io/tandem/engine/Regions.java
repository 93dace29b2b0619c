package io.tandem.engine;

import java.util.function.Consumer;

/**
 * The memory regions an engine reaches through {@link EngineContext#regions()} (DESIGN §2.1, §5;
 * derecho.md §2, §8.4). Every member registers a region of the same name and size; pushes then
 * copy ranges of this node's copy into the other members' copies of it.
 */
public interface Regions {
    /** How an engine learns that a member's push landed in our copy. */
    enum Notice {
        /** Nothing is called: the engine reads memory when it polls ({@link Engine#doWork}) or handles events (the SST way). */
        POLL,
        /** {@link Engine#onRegionWrite} is called on the loop after each push lands (the data is already in memory). */
        EVENT
    }

    /**
     * Registers region {@code name} of {@code sizeBytes} (a positive multiple of 8): this node's
     * copy and one per member, all zero-filled.
     *
     * @throws IllegalArgumentException for a bad size or a name already registered
     */
    Region register(String name, int sizeBytes, Notice notice);

    /** A region registered earlier. @throws IllegalArgumentException if there is none of that name */
    Region region(String name);

    /**
     * Stops applying {@code member}'s pushes to our copies of its regions (derecho.md §2.8: the row
     * of a suspected member is frozen so that what we read of it no longer changes). Lasts until
     * the member is removed from the transport and added again.
     */
    void freeze(NodeId member);

    boolean isFrozen(NodeId member);

    /**
     * Hands every completion reported since the last call to {@code sink}, oldest first, and returns
     * how many: a completion queue, polled like an RDMA CQ. The loop wakes (and a polling engine is
     * polled) when a completion arrives.
     */
    int pollCompletions(Consumer<PushCompletion> sink);
}
