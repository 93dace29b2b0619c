package io.tandem.roles;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The roles a protocol can place on members, for reading and checking {@link Deployment} files.
 *
 * @param protocol the protocol's registry name, for error messages
 * @param roles    every role it has, in the order a node starts them
 */
public record RoleCatalog(String protocol, List<RoleSpec> roles) {
    /**
     * One kind of role.
     *
     * @param name        as written in deployment files
     * @param minNodes    fewest members that must run it; 0 makes the role optional
     * @param description one line for error messages and {@code --help}
     */
    public record RoleSpec(String name, int minNodes, String description) {
        public RoleSpec {
            Objects.requireNonNull(name, "name");
            if (minNodes < 0) throw new IllegalArgumentException("minNodes of " + name + " must be >= 0");
            Objects.requireNonNull(description, "description");
        }
    }

    public RoleCatalog {
        Objects.requireNonNull(protocol, "protocol");
        roles = List.copyOf(roles);
        if (roles.isEmpty()) throw new IllegalArgumentException(protocol + " must have at least one role");
        Set<String> seen = new HashSet<>();
        for (RoleSpec r : roles) {
            if (!seen.add(r.name())) throw new IllegalArgumentException(protocol + " lists role " + r.name() + " twice");
        }
    }

    public Optional<RoleSpec> role(String name) {
        return roles.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    public List<String> names() {
        return roles.stream().map(RoleSpec::name).toList();
    }
}
