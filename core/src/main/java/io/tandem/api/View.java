package io.tandem.api;

import java.util.List;

/**
 * The membership of a group at one point, as in JGroups: an id that increases with each change
 * and the ordered members; the coordinator is the first member.
 */
public record View(long id, List<Address> members) {
    public View {
        members = List.copyOf(members);
        if (members.isEmpty()) throw new IllegalArgumentException("a view has at least one member");
        if (id < 1) throw new IllegalArgumentException("view ids start at 1");
    }

    public Address coordinator() {
        return members.getFirst();
    }

    public boolean contains(Address member) {
        return members.contains(member);
    }

    public int size() {
        return members.size();
    }

    @Override
    public String toString() {
        return "[" + coordinator() + "|" + id + "] " + members;
    }
}
