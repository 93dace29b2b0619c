package io.tandem.api;

import io.tandem.engine.NodeId;

/** A member of a channel's group, as in JGroups; wraps the member's {@link NodeId}. */
public record Address(NodeId node) implements Comparable<Address> {
    public static Address of(String name) {
        return new Address(NodeId.of(name));
    }

    public String name() {
        return node.value();
    }

    @Override
    public int compareTo(Address other) {
        return node.compareTo(other.node);
    }

    @Override
    public String toString() {
        return node.value();
    }
}
