package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.cli.TandemCli;
import io.tandem.kv.client.KvRejectedException;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.MembershipChange;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.testing.InJvmCluster;
import io.tandem.testing.Await;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A three-node MultiPaxos KV cluster reports the same status as a Raft one: the leading proposer is
 * LEADER, the others FOLLOWERs naming it in one epoch (the ballot round), with indexes and, on the
 * leader, each peer's lag; the CLI prints the same columns; membership changes are refused clearly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiPaxosServerStatusTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private InJvmCluster cluster;

    @BeforeAll
    void startCluster(@TempDir Path dir) {
        cluster = InJvmCluster.start(dir, 3, Map.of("protocol", "multipaxos"));
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) cluster.close();
    }

    /** The leader every member names in one epoch, once it reports itself LEADER and a write went through it. */
    private int awaitAgreedLeader(TandemKvClient client) {
        int[] leader = {-1};
        Await.until(WAIT, () -> {
            int l = cluster.leader().orElse(-1);
            if (l < 0) return false;
            NodeStatus ls = cluster.server(l).status();
            for (int i = 0; i < cluster.size(); i++) {
                NodeStatus s = cluster.server(i).status();
                if (!InJvmCluster.id(l).equals(s.leader()) || s.epoch() != ls.epoch()) return false;
            }
            leader[0] = l;
            return true;
        }, () -> "no agreed leader: " + cluster.statuses());
        return leader[0];
    }

    @Test
    void everyMemberReportsRoleLeaderEpochIndexesAndTheLeaderReportsLag() {
        try (TandemKvClient client = cluster.client()) {
            client.put("mp/a".getBytes(StandardCharsets.UTF_8), "1".getBytes(StandardCharsets.UTF_8));
            int leader = awaitAgreedLeader(client);
            String leaderId = InJvmCluster.id(leader);
            Await.until(WAIT, () -> {
                NodeStatus ls = client.status(cluster.clientAddress(leader));
                return ls.lag().size() == 2 && ls.lag().values().stream().allMatch(l -> l == 0);
            }, () -> "leader status " + client.status(cluster.clientAddress(leader)));

            NodeStatus ls = client.status(cluster.clientAddress(leader));
            assertThat(ls.protocol()).isEqualTo("multipaxos");
            assertThat(ls.role()).isEqualTo("LEADER");
            assertThat(ls.leader()).isEqualTo(leaderId);
            assertThat(ls.leaderClientAddress()).isEqualTo(cluster.clientAddress(leader).toString());
            assertThat(ls.epoch()).isPositive();
            assertThat(ls.commitIndex()).isPositive();
            assertThat(ls.voters()).containsExactly("n1", "n2", "n3");
            assertThat(ls.lag()).doesNotContainKey(leaderId);
            for (int i = 0; i < cluster.size(); i++) {
                if (i == leader) continue;
                NodeStatus s = client.status(cluster.clientAddress(i));
                assertThat(s.role()).as(s.node()).isEqualTo("FOLLOWER");
                assertThat(s.leader()).as(s.node()).isEqualTo(leaderId);
                assertThat(s.epoch()).as(s.node()).isEqualTo(ls.epoch());
                assertThat(s.lag()).as(s.node()).isEmpty();
            }
            int l = leader;
            Await.until(WAIT, () -> client.status(cluster.clientAddress((l + 1) % 3)).appliedIndex() >= 1);
        }
    }

    @Test
    void theStatusCommandShowsTheSameColumnsAsForRaft() {
        try (TandemKvClient client = cluster.client()) {
            awaitAgreedLeader(client);
        }
        String members = cluster.clientAddresses().stream().map(Object::toString).collect(Collectors.joining(","));
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("status", "--members=" + members)).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.getFirst().split("\\s+")).containsSubsequence("node", "role", "leader", "epoch", "commit", "applied", "lag");
        assertThat(lines).hasSize(4);
        assertThat(lines).filteredOn(line -> line.contains(" LEADER ")).hasSize(1);
        assertThat(lines).filteredOn(line -> line.contains(" FOLLOWER ")).hasSize(2);
        assertThat(lines).filteredOn(line -> line.contains("multipaxos")).hasSize(3);
    }

    @Test
    void membershipChangesAreRefusedAsUnsupported() {
        try (TandemKvClient client = cluster.client()) {
            awaitAgreedLeader(client);
            assertThatThrownBy(() -> client.changeMembership(MembershipChange.ADD_LEARNER, "n2"))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED))
                    .hasMessageContaining("multipaxos does not support add-learner");
        }
    }
}
