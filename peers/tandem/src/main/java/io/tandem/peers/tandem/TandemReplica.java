package io.tandem.peers.tandem;

import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.server.KvServer;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.Role;
import java.util.function.Function;

/** A running KV server; its role comes from the server's own engine-neutral status (read on the node's loop, no network request). */
final class TandemReplica implements Replica {
    private final KvServer server;
    private final Function<NodeStatus, Role> roleOf;
    private volatile boolean closed;

    TandemReplica(KvServer server, Function<NodeStatus, Role> roleOf) {
        this.server = server;
        this.roleOf = roleOf;
    }

    KvServer server() {
        return server;
    }

    @Override
    public Role role() {
        return closed ? Role.OTHER : roleOf.apply(server.status());
    }

    @Override
    public void close() {
        closed = true;
        server.close();
    }
}
