package io.tandem.kv.server;

import io.tandem.kv.DurationText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {
    private static final String MEMBERS = "n1=127.0.0.1:7001,n2=127.0.0.1:7002,n3=10.0.0.3:7003";

    @TempDir
    Path tmp;

    private static Map<String, String> flags(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private Path file(String text) throws IOException {
        Path f = tmp.resolve("server.conf");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void defaultsFromTheRequiredKeysAlone() {
        ServerConfig c = ServerConfig.load(null, flags("id", "n2", "members", MEMBERS, "data-dir", "d"));
        assertThat(c.id()).isEqualTo(NodeId.of("n2"));
        assertThat(c.members().keySet()).containsExactly(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        assertThat(c.peerAddress()).isEqualTo(Endpoint.parse("127.0.0.1:7002"));
        assertThat(c.clientAddress()).isEqualTo(Endpoint.parse("127.0.0.1:8002"));
        assertThat(c.clientAddresses().get(NodeId.of("n3"))).isEqualTo(Endpoint.parse("10.0.0.3:8003"));
        assertThat(c.cluster()).isEqualTo("tandem");
        assertThat(c.protocol()).isEqualTo("raft");
        assertThat(c.protocolSettings()).as("nothing set: the protocol keeps its own").isEqualTo(io.tandem.engine.HostSettings.NONE);
        assertThat(c.dataDir()).isEqualTo(Path.of("d"));
        assertThat(c.fsync()).isTrue();
        assertThat(c.metricsPort()).isZero();
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.maxPendingRequests()).isEqualTo(10_000);
        assertThat(c.maxClientConnections()).isEqualTo(1024);
        assertThat(c.maxRequestsPerConnection()).isEqualTo(1024);
        assertThat(c.faultInjection()).isFalse();
        assertThat(c.pidFile()).isNull();
    }

    @Test
    void everyKeyFromAFileWithCommentsAndFlagsOverridingIt() throws IOException {
        Path f = file("""
                # a comment
                id = n1
                members = %s

                client-members = n1=127.0.0.1:9101, n2=127.0.0.1:9102, n3=10.0.0.3:9103
                cluster = prod-1
                protocol = multipaxos
                data-dir = /var/lib/tandem
                fsync = false
                metrics-port = 9300
                request-timeout = 2500ms
                max-pending-requests = 5_000
                max-client-connections = 10
                max-requests-per-connection = 20
                fault-injection = yes
                pid-file = /run/tandem.pid
                election-timeout-min = 300ms
                election-timeout-max = 0.6s
                """.formatted(MEMBERS));
        ServerConfig c = ServerConfig.load(f, flags("cluster", "prod-2", "fsync", "true", "client-port", "9999"));
        assertThat(c.cluster()).isEqualTo("prod-2");
        assertThat(c.fsync()).isTrue();
        assertThat(c.clientAddress()).isEqualTo(Endpoint.parse("127.0.0.1:9999"));
        assertThat(c.clientAddresses().get(NodeId.of("n2"))).isEqualTo(Endpoint.parse("127.0.0.1:9102"));
        assertThat(c.protocol()).isEqualTo("multipaxos");
        assertThat(c.dataDir()).isEqualTo(Path.of("/var/lib/tandem"));
        assertThat(c.metricsPort()).isEqualTo(9300);
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(c.maxPendingRequests()).isEqualTo(5000);
        assertThat(c.maxClientConnections()).isEqualTo(10);
        assertThat(c.maxRequestsPerConnection()).isEqualTo(20);
        assertThat(c.faultInjection()).isTrue();
        assertThat(c.pidFile()).isEqualTo(Path.of("/run/tandem.pid"));
        assertThat(c.protocolSettings().electionTimeoutMin()).isEqualTo(Duration.ofMillis(300));
        assertThat(c.protocolSettings().electionTimeoutMax()).isEqualTo(Duration.ofMillis(600));
    }

    @Test
    void clientAddressAndInitialVoters() {
        ServerConfig c = ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "client-address", "0.0.0.0:8100",
                "initial-voters", "n1, n2"));
        assertThat(c.clientAddress()).isEqualTo(Endpoint.parse("0.0.0.0:8100"));
        assertThat(c.protocolSettings().initialVoters()).isEqualTo(Set.of(NodeId.of("n1"), NodeId.of("n2")));
    }

    @Test
    void fileErrorsNameTheFileLineAndKey() throws IOException {
        assertThatThrownBy(() -> ServerConfig.load(file("id = n1\nmembrs = x\n"), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("server.conf line 2: unknown key 'membrs'").hasMessageContaining("known keys: id, members");
        assertThatThrownBy(() -> ServerConfig.load(file("id = n1\n\njust words\n"), Map.of()))
                .hasMessageContaining("line 3: expected 'key = value', found 'just words'");
        assertThatThrownBy(() -> ServerConfig.load(file("id = n1\nid = n2\n"), Map.of()))
                .hasMessageContaining("line 2: key 'id' is set again (first at ").hasMessageContaining("line 1)");
        assertThatThrownBy(() -> ServerConfig.load(file("id =\n"), Map.of())).hasMessageContaining("line 1: key 'id' has no value");
        assertThatThrownBy(() -> ServerConfig.load(file("id = n1\nmembers = " + MEMBERS + "\ndata-dir = d\nrequest-timeout = 10\n"), Map.of()))
                .hasMessageContaining("line 4: request-timeout: '10' is not a duration");
        assertThatThrownBy(() -> ServerConfig.load(file("id = n1\nmembers = n1=localhost\ndata-dir = d\n"), Map.of()))
                .hasMessageContaining("line 2: members: endpoint 'localhost' is not host:port");
        assertThatThrownBy(() -> ServerConfig.load(tmp.resolve("missing.conf"), Map.of())).hasMessageContaining("missing.conf does not exist");
    }

    @Test
    void aDeploymentFilePlacesMultiPaxosRolesAndIsCheckedAgainstTheMembersAtLoad() throws IOException {
        Map<String, String> base = flags("id", "n1", "members", MEMBERS, "data-dir", "d", "protocol", "multipaxos");
        Path good = tmp.resolve("deploy.conf");
        Files.writeString(good, "leader = n1\nacceptor = *\nreplica = n1, n2, n3\nfrontend = n1\n");
        ServerConfig c = load(base, "deployment", good.toString());
        assertThat(c.deployment().resolve(List.copyOf(c.members().keySet())).nodes("leader")).containsExactly(NodeId.of("n1"));
        Path bad = tmp.resolve("bad.conf");
        Files.writeString(bad, "leader = n1\nacceptor = n1, n2, n9\nreplica = *\nfrontend = *\n");
        assertThatThrownBy(() -> load(base, "deployment", bad.toString())).isInstanceOf(ConfigException.class)
                .hasMessage("--deployment: deployment: role acceptor (line 2) names n9, which is not a member of the group [n1, n2, n3]");
        assertThatThrownBy(() -> load(flags("id", "n1", "members", MEMBERS, "data-dir", "d"), "deployment", good.toString()))
                .hasMessage("--deployment: deployment: raft runs one engine per member and takes no deployment file");
    }

    @Test
    void flagErrorsNameTheFlag() {
        Map<String, String> base = flags("id", "n1", "members", MEMBERS, "data-dir", "d");
        assertThatThrownBy(() -> load(base, "protocol", "paxos")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("--protocol: protocol: unknown protocol 'paxos'; known: ").hasMessageContaining("raft");
        assertThatThrownBy(() -> load(base, "client-port", "70000")).hasMessageContaining("--client-port: client-port: port 70000 is outside 1-65535");
        assertThatThrownBy(() -> load(base, "fsync", "maybe")).hasMessageContaining("--fsync: fsync: 'maybe' is not true or false");
        assertThatThrownBy(() -> load(base, "max-pending-requests", "0")).hasMessageContaining("0 is not positive");
        assertThatThrownBy(() -> load(base, "id", "n9")).hasMessageContaining("members does not list this node's id 'n9'");
        assertThatThrownBy(() -> load(base, "id", "bad id!")).hasMessageContaining("--id: id:");
        assertThatThrownBy(() -> load(base, "members", "n1=127.0.0.1:7001,n1=127.0.0.1:7002")).hasMessageContaining("member n1 is listed twice");
        assertThatThrownBy(() -> load(base, "client-members", "n1=h:1,n2=h:2")).hasMessageContaining("client-members lists [n1, n2] but the members are [n1, n2, n3]");
        assertThatThrownBy(() -> load(base, "initial-voters", "n1,n7")).hasMessageContaining("initial-voters names n7, which is not a member");
        assertThatThrownBy(() -> load(base, "client-port", "7001")).hasMessageContaining("is the peer address");
        assertThatThrownBy(() -> load(base, "election-timeout-min", "2s"))
                .hasMessageContaining("--election-timeout-min: election-timeout-min does not fit the raft protocol: election-timeout-max (2s) must be above election-timeout-min (2s)");
        Map<String, String> bothBounds = new LinkedHashMap<>(base);
        bothBounds.put("election-timeout-max", "1s");
        assertThatThrownBy(() -> load(bothBounds, "election-timeout-min", "1s")).hasMessageContaining("election-timeout-max (1s) must be above election-timeout-min (1s)");
        assertThatThrownBy(() -> load(base, "election-timeout-min", "150ms")).hasMessageContaining("--election-timeout-min: election-timeout-min does not fit the raft protocol: ")
                .hasMessageContaining("must be at most half of electionTimeoutMin");
        assertThatThrownBy(() -> load(base, "cluster", "a b")).hasMessageContaining("'a b' is not a cluster name");
        Map<String, String> both = new LinkedHashMap<>(base);
        both.put("client-address", "127.0.0.1:8100");
        assertThatThrownBy(() -> load(both, "client-port", "8200")).hasMessageContaining("--client-port: client-port conflicts with client-address (--client-address)");
    }

    @Test
    void engineOptionsAreCheckedAgainstTheProtocolWhenLoaded() throws IOException {
        Map<String, String> base = flags("id", "n1", "members", MEMBERS, "data-dir", "d");
        assertThat(ServerConfig.load(null, base).engineOptions()).as("unset: the protocol's own").isEmpty();
        ServerConfig c = load(base, "engine-options", "max-inflight-messages=4, max-batch-entries=64,");
        assertThat(c.engineOptions()).containsExactly(Map.entry("max-inflight-messages", "4"), Map.entry("max-batch-entries", "64"));
        io.tandem.protocols.raft.RaftConfig raft = ((io.tandem.protocols.raft.RaftProtocol) io.tandem.protocols.Protocols.byName(c.protocol())
                .withEngineOptions(c.engineOptions())).config();
        assertThat(raft.maxInflightMessages()).isEqualTo(4);
        assertThat(raft.maxBatchEntries()).isEqualTo(64);
        assertThatThrownBy(() -> load(base, "engine-options", "max-inflight-messages=0"))
                .hasMessageContaining("--engine-options: engine-options does not fit the raft protocol: engine option max-inflight-messages=0: maxInflightMessages must be >= 1, was 0");
        assertThatThrownBy(() -> load(base, "engine-options", "max-batch-slots=1"))
                .hasMessageContaining("unknown raft engine option 'max-batch-slots' (known: max-inflight-messages,");
        assertThatThrownBy(() -> load(base, "engine-options", "max-inflight-messages")).hasMessageContaining("--engine-options: engine-options: 'max-inflight-messages' is not KEY=VALUE");
        assertThatThrownBy(() -> load(base, "engine-options", "max-batch-entries=1,max-batch-entries=2")).hasMessageContaining("'max-batch-entries' is given twice");
        Map<String, String> paxos = new LinkedHashMap<>(base);
        paxos.put("protocol", "multipaxos");
        assertThat(load(paxos, "engine-options", "max-inflight-messages=8").engineOptions()).containsEntry("max-inflight-messages", "8");
        assertThatThrownBy(() -> load(paxos, "engine-options", "max-batch-entries=8")).hasMessageContaining("unknown multipaxos engine option 'max-batch-entries'");
        Map<String, String> copilot = new LinkedHashMap<>(base);
        copilot.put("protocol", "copilot");
        assertThatThrownBy(() -> load(copilot, "engine-options", "max-inflight-messages=8")).hasMessageContaining("copilot takes no engine options");
        // In a file the value holds '=' too: the line's first '=' ends the key.
        Path f = file("id = n1\nmembers = " + MEMBERS + "\ndata-dir = d\nengine-options = max-inflight-bytes=65536\n");
        assertThat(ServerConfig.load(f, Map.of()).engineOptions()).containsExactly(Map.entry("max-inflight-bytes", "65536"));
    }

    @Test
    void protocolSettingsApplyToTheProtocolsThatHaveThemAndAreRefusedByTheOthers() throws IOException {
        Map<String, String> base = flags("id", "n1", "members", MEMBERS, "data-dir", "d");
        assertThat(ServerConfig.load(null, base).protocolSettings().snapshotThreshold()).as("unset: the protocol's own").isNull();
        assertThat(load(base, "snapshot-threshold", "1000000").protocolSettings().snapshotThreshold()).isEqualTo(1_000_000);
        assertThatThrownBy(() -> load(base, "snapshot-threshold", "0")).hasMessageContaining("0 is not positive");
        Map<String, String> paxos = new LinkedHashMap<>(base);
        paxos.put("protocol", "multipaxos");
        assertThat(load(paxos, "snapshot-threshold", "5000").protocolSettings().snapshotThreshold()).isEqualTo(5000);
        assertThat(load(paxos, "election-timeout-min", "300ms").protocolSettings().electionTimeoutMin()).isEqualTo(Duration.ofMillis(300));
        assertThatThrownBy(() -> load(paxos, "initial-voters", "n1,n2"))
                .hasMessageContaining("--initial-voters: initial-voters is not a setting of the multipaxos protocol (it takes election-timeout, snapshot-threshold)");
        Map<String, String> vsync = new LinkedHashMap<>(base);
        vsync.put("protocol", "virtual-synchrony");
        assertThatThrownBy(() -> load(vsync, "snapshot-threshold", "5000"))
                .hasMessageContaining("snapshot-threshold is not a setting of the virtual-synchrony protocol (it takes none of election-timeout, snapshot-threshold, initial-voters)");
        Map<String, String> copilot = new LinkedHashMap<>(base);
        copilot.put("protocol", "copilot");
        assertThatThrownBy(() -> load(copilot, "election-timeout-max", "3s"))
                .hasMessageContaining("--election-timeout-max: election-timeout-max is not a setting of the copilot protocol (it takes snapshot-threshold)");
        Path toy = file("id = n1\nmembers = " + MEMBERS + "\ndata-dir = d\nprotocol = toy-pb\nelection-timeout-min = 300ms\n");
        assertThatThrownBy(() -> ServerConfig.load(toy, Map.of())).hasMessageContaining("line 5: election-timeout-min is not a setting of the toy-pb protocol");
    }

    @Test
    void missingRequiredSettingsSayHowToGiveThem() throws IOException {
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1"))).hasMessageContaining("missing setting 'members'")
                .hasMessageContaining("pass --members or --config FILE");
        Path f = file("id = n1\nmembers = " + MEMBERS + "\n");
        assertThatThrownBy(() -> ServerConfig.load(f, Map.of())).hasMessageContaining("missing setting 'data-dir'")
                .hasMessageContaining("add 'data-dir = ...' to " + f);
    }

    @Test
    void derivedClientPortsMustFit() {
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", "n1=h:65000", "data-dir", "d")))
                .hasMessageContaining("default client port 66000 is out of range, so set client-members");
    }

    @Test
    void durations() {
        assertThat(DurationText.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(DurationText.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(DurationText.parse(" 2m ")).isEqualTo(Duration.ofMinutes(2));
        assertThat(DurationText.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationText.parse("40us")).isEqualTo(Duration.ofNanos(40_000));
        assertThatThrownBy(() -> DurationText.parse("5")).hasMessageContaining("write a number and a unit");
        assertThatThrownBy(() -> DurationText.parse("-1s")).hasMessageContaining("is not a duration");
        assertThat(DurationText.format(Duration.ofNanos(850_000))).isEqualTo("850us");
        assertThat(DurationText.format(Duration.ofNanos(12_340_000))).isEqualTo("12.3ms");
        assertThat(DurationText.format(Duration.ofMillis(1620))).isEqualTo("1.62s");
        assertThat(DurationText.format(Duration.ofSeconds(20))).isEqualTo("20s");
        assertThat(DurationText.format(Duration.ofSeconds(125))).isEqualTo("2m5s");
    }

    private static ServerConfig load(Map<String, String> base, String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(base);
        m.put(key, value);
        return ServerConfig.load(null, m);
    }

    @Test
    void stateMachineIsBtreeByDefaultHashmapOnRequestAndCheckedAtLoad() {
        assertThat(ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d")).stateMachine()).isEqualTo("btree");
        assertThat(ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "state-machine", "hashmap")).stateMachine()).isEqualTo("hashmap");
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "state-machine", "skiplist")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("must be btree or hashmap, was 'skiplist'");
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "state-machine", "hashmap", "execution", "psmr")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sequential execution only");
    }

    @Test
    void executionModeThreadsAndPartitioningAreCheckedAtLoad() {
        ServerConfig seq = ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d"));
        assertThat(seq.execution()).isEqualTo(io.tandem.execution.ExecutionMode.SEQUENTIAL);
        assertThat(seq.executionThreads()).isEqualTo(1);
        ServerConfig opt = ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "execution", "opt-psmr", "partition", "longs:999"));
        assertThat(opt.execution()).isEqualTo(io.tandem.execution.ExecutionMode.OPT_PSMR);
        assertThat(opt.executionThreads()).isEqualTo(2);
        assertThat(opt.partitioning().workerOf(java.nio.ByteBuffer.allocate(8).putLong(999).array(), 2)).isEqualTo(1);
        assertThat(ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "execution", "psmr", "threads", "4")).executionThreads()).isEqualTo(4);
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "execution", "fast")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sequential, psmr or opt-psmr");
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "threads", "2")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("threads");
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "execution", "psmr", "partition", "hash")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("uniform or longs");
    }

    @Test
    void shardsAreForVirtualSynchronyAndMustFitTheMembers() {
        String vs = "virtual-synchrony";
        ServerConfig c = ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "protocol", vs, "shards", "3"));
        assertThat(c.shards()).isEqualTo(3);
        assertThat(c.shardReplicas()).isEqualTo(1); // members / shards
        assertThat(ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d")).shards()).isZero();
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "protocol", vs, "shards", "2", "shard-replicas", "2")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shard-replicas is impossible: 2 shards of at least 2 replicas need 4 members, but the group has 3: lower shards or shard-replicas, or add members");
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "protocol", vs, "shards", "4")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("shards is impossible: 4 shards of at least 1 replica need 4 members, but the group has 3");
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "shards", "2")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shards needs a protocol that splits its group into shards: raft cannot split its group into shards");
        // The refusal is the protocol's own (Protocol.shardingRefused), named after it, for every protocol without subgroups.
        for (String other : io.tandem.protocols.Protocols.names()) {
            if (other.equals(vs)) continue;
            assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "protocol", other, "shards", "1")))
                    .as(other).isInstanceOf(ConfigException.class).hasMessageContaining("shards needs a protocol that splits its group into shards: " + other + " cannot");
        }
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "protocol", vs, "shard-replicas", "2")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("shard-replicas needs shards too");
        assertThatThrownBy(() -> ServerConfig.load(null, flags("id", "n1", "members", MEMBERS, "data-dir", "d", "protocol", vs, "shards", "2", "execution", "psmr")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cannot be combined with execution = psmr");
    }
}
