package io.tandem.engine;

import java.util.List;
import java.util.Objects;

/**
 * One membership configuration of a group, as an engine decides it (DESIGN §2.1, derecho.md §1.2):
 * an id that grows with every change and the ordered members. An engine installs each view with
 * {@link EngineContext#installView}; the runtime hands it to every channel {@code Receiver} in the
 * order of the engine's deliveries, and connects the transport to the members that joined and
 * disconnects it from those that left.
 */
public record GroupView(long id, List<NodeId> members) {
    public GroupView {
        if (id < 1) throw new IllegalArgumentException("view ids start at 1, was " + id);
        members = List.copyOf(Objects.requireNonNull(members, "members"));
        if (members.isEmpty()) throw new IllegalArgumentException("view " + id + " has no member");
        if (members.stream().distinct().count() != members.size()) throw new IllegalArgumentException("view " + id + " lists a member twice: " + members);
    }

    public boolean contains(NodeId node) {
        return members.contains(node);
    }

    @Override
    public String toString() {
        return "view " + id + " " + members;
    }
}
