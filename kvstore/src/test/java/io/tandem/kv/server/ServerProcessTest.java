package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ReadPolicy;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.testing.FreePorts;
import io.tandem.kv.testing.TandemProcess;
import io.tandem.testing.Await;
import io.tandem.transport.Endpoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code tandem server} processes over real TCP with fsync on: writes and reads through the
 * client, the leader killed with SIGKILL, a new leader, the killed node restarted from its data
 * directory and caught up with nothing lost, and a graceful stop on SIGTERM.
 */
class ServerProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<TandemProcess> servers = new ArrayList<>();

    @AfterEach
    void killAll() {
        for (TandemProcess p : servers) p.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void survivesTheLeaderBeingKilledAndRestarted() throws Exception {
        List<Integer> ports = FreePorts.take(6);
        List<String> members = new ArrayList<>(), clients = new ArrayList<>();
        List<Endpoint> clientEndpoints = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add("n" + (i + 1) + "=127.0.0.1:" + ports.get(i));
            clients.add("n" + (i + 1) + "=127.0.0.1:" + ports.get(3 + i));
            clientEndpoints.add(new Endpoint("127.0.0.1", ports.get(3 + i)));
        }
        for (int i = 0; i < 3; i++) {
            String id = "n" + (i + 1);
            servers.add(TandemProcess.start(dir.resolve(id + ".log"), "server", "--id", id, "--members", String.join(",", members),
                    "--client-members", String.join(",", clients), "--cluster", "e2e", "--data-dir", dir.resolve(id).toString(),
                    "--pid-file", dir.resolve(id + ".pid").toString(), "--election-timeout-min", "500ms", "--election-timeout-max", "1s"));
        }
        KvClientConfig config = KvClientConfig.of(clientEndpoints).withRequestTimeout(Duration.ofSeconds(30)).withAttemptTimeout(Duration.ofSeconds(2));
        try (TandemKvClient kv = TandemKvClient.connect(config)) {
            NodeStatus first = awaitLeader(kv, clientEndpoints, null);
            for (int i = 0; i < 200; i++) kv.put(b("k" + i), b("v" + i));
            for (int i = 0; i < 200; i += 7) assertThat(kv.get(b("k" + i))).hasValueSatisfying(v -> assertThat(v).isNotEmpty());

            int leader = Integer.parseInt(first.node().substring(1)) - 1;
            TandemProcess killed = servers.get(leader);
            assertThat(killed.pid()).isEqualTo(first.pid());
            assertThat(killed.kill()).as("SIGKILL").isEqualTo(137);
            assertThat(Files.exists(dir.resolve(first.node() + ".pid"))).as("a killed server leaves its pid file").isTrue();

            NodeStatus second = awaitLeader(kv, clientEndpoints, first.node());
            assertThat(second.epoch()).isGreaterThan(first.epoch());
            for (int i = 200; i < 300; i++) kv.put(b("k" + i), b("v" + i)); // two of three nodes keep serving
            for (int i = 0; i < 300; i++) {
                String expected = "v" + i;
                assertThat(kv.get(b("k" + i))).as("k%d", i).hasValueSatisfying(v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo(expected));
            }

            killed.restart();
            long commit = kv.status(clientEndpoints.get(second.node().charAt(1) - '1')).commitIndex();
            Endpoint restarted = clientEndpoints.get(leader);
            Await.until(WAIT, () -> appliedAt(kv, restarted) >= commit, () -> first.node() + " catches up to " + commit + "; its log:\n" + killed.output());
            // Its own state machine holds every write, including those made while it was down.
            try (TandemKvClient local = TandemKvClient.connect(KvClientConfig.of(List.of(restarted)).withReadPolicy(ReadPolicy.stale(commit)))) {
                for (int i = 0; i < 300; i += 11) assertThat(local.get(b("k" + i))).as("k%d on the restarted node", i).isPresent();
            }
            assertThat(kv.status(restarted).role()).isEqualTo("FOLLOWER");
        }

        for (int i = 0; i < 3; i++) {
            TandemProcess p = servers.get(i);
            assertThat(p.terminate(WAIT)).as("exit status after SIGTERM").isEqualTo(143);
            assertThat(p.output()).contains("n" + (i + 1) + " stopped");
            assertThat(Files.exists(dir.resolve("n" + (i + 1) + ".pid"))).as("the pid file is removed on a clean exit").isFalse();
        }
    }

    private static long appliedAt(TandemKvClient kv, Endpoint node) {
        try {
            return kv.status(node).appliedIndex();
        } catch (RuntimeException notUpYet) {
            return -1;
        }
    }

    /** Waits until a node other than {@code notThis} leads and the others agree; returns its status. */
    private static NodeStatus awaitLeader(TandemKvClient kv, List<Endpoint> nodes, String notThis) {
        NodeStatus[] found = new NodeStatus[1];
        Await.until(WAIT, () -> {
            Map<Endpoint, Object> all = kv.statusAll();
            Optional<NodeStatus> leader = all.values().stream().filter(s -> s instanceof NodeStatus ns && ns.isLeader()).map(s -> (NodeStatus) s)
                    .filter(s -> !s.node().equals(notThis)).findFirst();
            if (leader.isEmpty()) return false;
            boolean agreed = all.values().stream().filter(s -> s instanceof NodeStatus).allMatch(s -> leader.get().node().equals(((NodeStatus) s).leader()));
            found[0] = leader.get();
            return agreed;
        }, () -> "a leader other than " + notThis + ": " + kv.statusAll());
        return found[0];
    }
}
