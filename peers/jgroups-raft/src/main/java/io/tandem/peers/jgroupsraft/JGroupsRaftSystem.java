package io.tandem.peers.jgroupsraft;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.raft.RaftHandle;

/**
 * jgroups-raft 1.1.4 as a system under test. Each replica is a JGroups member (TCP + TCPPING on loopback,
 * stack in {@code raft-tcp.xml}) with RAFT over a {@code FileBasedLog} in its data directory, a
 * {@link RaftHandle} around a {@link MapStateMachine}, and a {@link PutServer} through which the load driver's
 * process submits puts to {@code RaftHandle.setAsync}.
 *
 * <p>Options: {@code max-log-size=BYTES} (RAFT's {@code max_log_size}, default {@value #DEFAULT_MAX_LOG_SIZE}).
 *
 * <p>Ports of replica {@code i}: {@code layout.port(i, 0)} JGroups TCP, {@code layout.port(i, 1)} the put server.
 * The raft ids (and JGroups logical names) are {@code r0}, {@code r1}, ...
 */
public final class JGroupsRaftSystem implements PeerSystem {
    static final String CLUSTER = "tandem-peers-jgroups-raft";
    static final int JGROUPS_PORT = 0;
    static final int PUT_SERVER_PORT = 1;
    /**
     * RAFT's {@code max_log_size}: the log size in bytes at which RAFT snapshots the state machine and truncates
     * the log. The library default, 1 MB, snapshots every ~1000 puts of 1 KiB, synchronously on RAFT's only
     * thread, which stalled all puts for 2-3 s at a time in our runs. 1 GiB means no snapshot within a benchmark
     * run, like Ratis, which takes none unless asked. {@code --opt max-log-size=BYTES} sets another value.
     */
    static final long DEFAULT_MAX_LOG_SIZE = 1L << 30;
    private static final Pattern RAFT_ID = Pattern.compile("r(\\d+)");

    @Override
    public String name() {
        return "jgroups-raft";
    }

    static String raftId(int replica) {
        return "r" + replica;
    }

    /** The stack of replica {@code config.id()}: the template with this replica's ports, members, log and fsync. */
    static String stackXml(ReplicaConfig config) {
        ClusterLayout layout = config.layout();
        StringJoiner hosts = new StringJoiner(",");
        StringJoiner members = new StringJoiner(",");
        for (int i = 0; i < layout.replicas(); i++) {
            hosts.add(layout.host() + "[" + layout.port(i, JGROUPS_PORT) + "]");
            members.add(raftId(i));
        }
        String template;
        try (InputStream in = JGroupsRaftSystem.class.getResourceAsStream("raft-tcp.xml")) {
            if (in == null) throw new IllegalStateException("raft-tcp.xml missing from the jar");
            template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> values = Map.of(
                "host", layout.host(),
                "bind_port", Integer.toString(layout.port(config.id(), JGROUPS_PORT)),
                "initial_hosts", hosts.toString(),
                "members", members.toString(),
                "raft_id", raftId(config.id()),
                "log_dir", config.dataDir().toAbsolutePath().toString(),
                // RAFT's log_use_fsync is handed to FileBasedLog.useFsync: true forces every appended batch to disk
                // (FileChannel.force) before RAFT acknowledges it; false leaves it in the page cache. Its default is false.
                "fsync", Boolean.toString(config.fsync()),
                "max_log_size", config.option("max-log-size", Long.toString(DEFAULT_MAX_LOG_SIZE)));
        String xml = template;
        for (Map.Entry<String, String> e : values.entrySet()) xml = xml.replace("{{" + e.getKey() + "}}", e.getValue());
        if (xml.contains("{{")) throw new IllegalStateException("unfilled token in raft-tcp.xml");
        return xml;
    }

    @Override
    public Replica startReplica(ReplicaConfig config) throws Exception {
        JChannel channel = new JChannel(new ByteArrayInputStream(stackXml(config).getBytes(StandardCharsets.UTF_8)));
        channel.name(raftId(config.id()));
        MapStateMachine stateMachine = new MapStateMachine();
        RaftHandle handle = new RaftHandle(channel, stateMachine).raftId(raftId(config.id()));
        try {
            channel.connect(CLUSTER);
            PutServer server = new PutServer(config.layout().host(), config.layout().port(config.id(), PUT_SERVER_PORT), handle,
                    () -> leaderIndex(handle.leader()));
            return new JGroupsRaftReplica(channel, handle, stateMachine, server);
        } catch (Exception e) {
            channel.close();
            throw e;
        }
    }

    /** The replica index of a member's address (its logical name is its raft id), or -1. */
    static int leaderIndex(Address leader) {
        if (leader == null) return -1;
        Matcher m = RAFT_ID.matcher(leader.toString());
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** A running member. */
    static final class JGroupsRaftReplica implements Replica {
        private final JChannel channel;
        private final RaftHandle handle;
        private final MapStateMachine stateMachine;
        private final PutServer server;

        JGroupsRaftReplica(JChannel channel, RaftHandle handle, MapStateMachine stateMachine, PutServer server) {
            this.channel = channel;
            this.handle = handle;
            this.stateMachine = stateMachine;
            this.server = server;
        }

        @Override
        public Role role() {
            if (handle.isLeader()) return Role.LEADER;
            // RAFT's role is the simple name of its current RaftImpl: Leader, Follower or Learner. A follower that
            // knows no leader is between terms, which the benchmark counts as OTHER.
            if ("Follower".equals(handle.raft().role()) && handle.leader() != null) return Role.FOLLOWER;
            return Role.OTHER;
        }

        MapStateMachine stateMachine() {
            return stateMachine;
        }

        RaftHandle handle() {
            return handle;
        }

        @Override
        public void close() throws IOException {
            try {
                server.close();
            } finally {
                channel.close();
            }
        }
    }

    @Override
    public PeerClient connect(ClientConfig config) throws IOException {
        return PutClient.connect(config.layout(), PUT_SERVER_PORT);
    }
}
