package io.tandem.peers.sofajraft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.State;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.rpc.RaftRpcServerFactory;
import com.alipay.sofa.jraft.rpc.RpcServer;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One jraft node of the benchmark group: a {@link RaftGroupService} whose Bolt server (port 0 of the replica's
 * block) carries both jraft's RPCs and the clients' {@link PutRequest}s, with the log in RocksDB under the data
 * directory.
 */
final class SofaJraftReplica implements Replica {
    /** The one Raft group of the benchmark. */
    static final String GROUP = "tandem-bench";
    private static final long CLOSE_TIMEOUT_SECONDS = 20;

    private final KvStateMachine fsm = new KvStateMachine();
    private final RaftGroupService service;
    private volatile Node node;

    SofaJraftReplica(ReplicaConfig config) throws Exception {
        ClusterLayout layout = config.layout();
        PeerId self = peer(layout, config.id());
        Path data = config.dataDir();
        Files.createDirectories(data);

        NodeOptions options = new NodeOptions();
        options.setFsm(fsm);
        options.setInitialConf(configuration(layout));
        options.setElectionTimeoutMs(Integer.parseInt(config.option("election-timeout-ms", "1000")));
        options.setSnapshotIntervalSecs(Integer.parseInt(config.option("snapshot-interval-secs", "3600")));
        options.setLogUri(data.resolve("log").toString());
        options.setRaftMetaUri(data.resolve("raft_meta").toString());
        options.setSnapshotUri(data.resolve("snapshot").toString());
        options.setRaftOptions(raftOptions(config.fsync()));

        RpcServer rpcServer = RaftRpcServerFactory.createRaftRpcServer(self.getEndpoint());
        rpcServer.registerProcessor(new PutProcessor(() -> node));
        service = new RaftGroupService(GROUP, self, options, rpcServer);
        node = service.start();
        if (node == null) throw new IllegalStateException("jraft node " + self + " did not start (see its log)");
    }

    /**
     * {@code fsync}: {@link RaftOptions#setSync} makes RocksDBLogStorage write each log batch with
     * {@code WriteOptions.setSync(true)} (the WAL is fsynced before the batch counts as stable, and only stable
     * entries count towards the quorum); {@link RaftOptions#setSyncMeta} does the same for the term/vote file.
     * Without fsync both go to the page cache only.
     */
    static RaftOptions raftOptions(boolean fsync) {
        RaftOptions raft = new RaftOptions();
        raft.setSync(fsync);
        raft.setSyncMeta(fsync);
        return raft;
    }

    static PeerId peer(ClusterLayout layout, int replica) {
        return new PeerId(layout.host(), layout.port(replica, 0));
    }

    static Configuration configuration(ClusterLayout layout) {
        Configuration conf = new Configuration();
        for (int i = 0; i < layout.replicas(); i++) conf.addPeer(peer(layout, i));
        return conf;
    }

    @Override
    public Role role() {
        Node raft = node;
        if (raft == null) return Role.OTHER;
        if (fsm.isLeader() && raft.isLeader()) return Role.LEADER;
        if (fsm.isFollowing() && raft.getNodeState() == State.STATE_FOLLOWER) return Role.FOLLOWER;
        return Role.OTHER;
    }

    KvStateMachine stateMachine() {
        return fsm;
    }

    /**
     * Shuts the node down and waits until it has (its queues drained, storage closed), then stops the RPC server.
     * Not {@code RaftGroupService.join()}: it holds the node's lock while waiting for the FSM thread, which takes the
     * same lock in jraft's own shutdown continuation, so the two deadlock (seen with jraft 1.3.15 on SIGTERM).
     */
    @Override
    public void close() throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        node.shutdown(status -> stopped.countDown()); // runs after jraft's internal join
        boolean clean = stopped.await(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        service.shutdown(); // the node is down already; this stops the RPC server and unregisters the address
        if (!clean) throw new IllegalStateException("jraft node did not shut down within " + CLOSE_TIMEOUT_SECONDS + " s");
    }
}
