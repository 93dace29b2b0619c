package io.tandem.protocols.multipaxos;

/**
 * How a node makes the roles its deployment gives it. Co-located or separated roles (classic or
 * compartmentalized deployments) all come from here, so a deployment that needs another kind of
 * role, or a test that plants a broken one, changes the factory rather than the node.
 */
interface Roles {
    /** The roles of the MultiPaxos this package implements. */
    Roles STANDARD = new Roles() {};

    default Leader leader(RoleContext rc) {
        return new Leader(rc);
    }

    default ProxyLeader proxy(RoleContext rc) {
        return new ProxyLeader(rc);
    }

    default Unbatcher unbatcher(RoleContext rc) {
        return new Unbatcher(rc);
    }

    default Frontend frontend(RoleContext rc, boolean batching) {
        return new Frontend(rc, batching);
    }

    default Replica replica(RoleContext rc, boolean recordHistory) {
        return new Replica(rc, recordHistory);
    }

    default Acceptor acceptor(RoleContext rc, boolean recordHistory) {
        return new Acceptor(rc, recordHistory);
    }
}
