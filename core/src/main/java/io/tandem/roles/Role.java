package io.tandem.roles;

import io.tandem.engine.Engine;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One role engine on a {@link RoleHost}: its name, the engine, the message types it receives, and
 * the node-wide duties it owns.
 *
 * @param name   unique on the node; also names the role's storage namespace and its metrics
 * @param engine the role, a deterministic {@link Engine} like any other
 * @param inbox  message types this role receives: a message goes to every co-located role whose
 *               inbox has a supertype of it (a heartbeat may belong to several roles); usually the
 *               role's sealed inbound interface
 * @param duties the node's single resources this role owns: at most one role per duty on a host
 * @param metaNamespace prefix of this role's keys in the node's meta store; the role sees and writes
 *               keys without it, and {@link io.tandem.storage.StorageEvent.MetaSaved} events are
 *               routed by it
 */
public record Role(String name, Engine engine, List<Class<?>> inbox, Set<Duty> duties, String metaNamespace) {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");

    /** What a node has once and a role may own. */
    public enum Duty {
        /** Receives client requests and operator (admin) requests submitted on this node. */
        CLIENTS,
        /** Owns the node's {@link io.tandem.storage.DurableLog} and its sync events. */
        LOG,
        /**
         * Drives execution: hands ordered commands to it, serves reads after it, takes and moves
         * snapshots ({@link io.tandem.storage.SnapshotStore}) and hears {@code onApplied}.
         */
        EXECUTION
    }

    public Role {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) throw new IllegalArgumentException("role name '" + name + "' must match " + NAME.pattern());
        Objects.requireNonNull(engine, "engine of role " + name);
        inbox = List.copyOf(inbox);
        duties = duties.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(duties));
        Objects.requireNonNull(metaNamespace, "metaNamespace");
        if (metaNamespace.isEmpty()) throw new IllegalArgumentException("role " + name + " needs a non-empty meta namespace");
    }

    /** A role named {@code name} receiving {@code inbox} types, its meta keys under {@code "<name>."}. */
    public static Role of(String name, Engine engine, Class<?>... inbox) {
        return new Role(name, engine, List.of(inbox), Set.of(), name + ".");
    }

    /** This role, also owning {@code duties}. */
    public Role owning(Duty... duties) {
        EnumSet<Duty> all = EnumSet.noneOf(Duty.class);
        all.addAll(this.duties);
        all.addAll(List.of(duties));
        return new Role(name, engine, inbox, all, metaNamespace);
    }

    /**
     * This role with its meta keys under {@code namespace} instead of {@code "<name>."}: for an engine
     * whose data directories already hold keys under another prefix, so they stay readable.
     */
    public Role withMetaNamespace(String namespace) {
        return new Role(name, engine, inbox, duties, namespace);
    }

    boolean receives(Object message) {
        for (Class<?> type : inbox) {
            if (type.isInstance(message)) return true;
        }
        return false;
    }
}
