package io.tandem.kv.server;

import io.tandem.kv.net.Request;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a client may do on the client port. A client's roles come from its certificate
 * ({@code urn:tandem:role:<role>} SANs), from its token, or from {@code anonymous-roles}.
 */
public enum Role {
    /** Gets, scans, status. */
    READ,
    /** Puts, deletes, compare-and-set. */
    WRITE,
    /** Membership changes, leadership transfer, fault plans and clock offsets. */
    ADMIN;

    /** The role {@code request} needs; null for a request anyone may send (authenticating itself). */
    static Role requiredFor(Request request) {
        return switch (request) {
            case Request.Command c -> WRITE;
            case Request.Query q -> READ;
            case Request.Status s -> READ;
            case Request.ChangeMembership m -> ADMIN;
            case Request.SetFaultPlan p -> ADMIN;
            case Request.SetClockOffset o -> ADMIN;
            case Request.Authenticate a -> null;
        };
    }

    /** Parses {@code read,write,admin}, {@code all} or {@code none}. */
    public static Set<Role> parseSet(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("none") || t.isEmpty()) return EnumSet.noneOf(Role.class);
        if (t.equals("all")) return EnumSet.allOf(Role.class);
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (String part : t.split(",")) {
            String p = part.strip();
            try {
                roles.add(valueOf(p.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown role '" + p + "' (roles: read, write, admin; or all, none)");
            }
        }
        return roles;
    }

    /** Roles named by lower-case strings (a certificate's), ignoring unknown ones. */
    static Set<Role> fromNames(Set<String> names) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (Role r : values()) if (names.contains(r.name().toLowerCase(Locale.ROOT))) roles.add(r);
        return roles;
    }

    /** "[read, write]" or "no roles", for messages. */
    public static String describeSet(Set<Role> roles) {
        return describe(roles);
    }

    static String describe(Set<Role> roles) {
        return roles.isEmpty() ? "no roles" : roles.stream().map(r -> r.name().toLowerCase(Locale.ROOT)).toList().toString();
    }
}
