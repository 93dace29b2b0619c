package io.tandem.roles;

import io.tandem.engine.NodeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A {@link Deployment} resolved against a group's members: which members run each role.
 *
 * @param members every member of the group, in the group's order
 * @param roles   each role of the catalog, in catalog order, with the members running it (in the
 *                order the file lists them, or the group's order for {@code *}); a role nobody runs
 *                maps to an empty list
 */
public record Placement(List<NodeId> members, Map<String, List<NodeId>> roles) {
    public Placement {
        members = List.copyOf(members);
        Map<String, List<NodeId>> copy = new LinkedHashMap<>();
        roles.forEach((role, nodes) -> copy.put(role, List.copyOf(nodes)));
        roles = java.util.Collections.unmodifiableMap(copy);
    }

    /** The members running {@code role}, or an empty list. */
    public List<NodeId> nodes(String role) {
        return roles.getOrDefault(role, List.of());
    }

    /** The roles {@code node} runs, in catalog order. */
    public Set<String> rolesOf(NodeId node) {
        Set<String> out = new java.util.LinkedHashSet<>();
        roles.forEach((role, nodes) -> {
            if (nodes.contains(node)) out.add(role);
        });
        return out;
    }

    /** Members running at least one role. */
    public Set<NodeId> used() {
        Set<NodeId> all = new TreeSet<>();
        roles.values().forEach(all::addAll);
        return all;
    }
}
