package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.kv.testing.FreePorts;
import io.tandem.kv.testing.TandemProcess;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.NodeStorage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem server} refuses bad input with a clear message and a non-zero exit status, as a
 * separate process: bad flags, a bad config file, an unknown protocol, a port in use, a data
 * directory of another cluster. The cases run as processes side by side.
 */
class ServerErrorsTest {
    @TempDir
    Path dir;

    private record Case(String name, int status, List<String> messages, TandemProcess process) {}

    @Test
    void badInputGivesAClearErrorAndANonZeroExit() throws IOException {
        List<Integer> ports = FreePorts.take(6);
        String members = "n1=127.0.0.1:" + ports.get(0) + ",n2=127.0.0.1:" + ports.get(1);
        Path config = dir.resolve("bad.conf");
        Files.writeString(config, "id = n1\nmembers = " + members + "\nelection-timeout = 1s\n");
        Path otherCluster = dir.resolve("other");
        // A data directory that belongs to cluster 'someone-else'.
        NodeStorage.open(otherCluster, "someone-else", NodeId.of("n1"), FlushPolicy.NO_FSYNC, e -> { },
                (meta, in) -> CompletableFuture.completedFuture(null)).close();
        try (ServerSocket busy = new ServerSocket(ports.get(2), 50, InetAddress.getLoopbackAddress());
             ServerSocket busyClient = new ServerSocket(ports.get(3), 50, InetAddress.getLoopbackAddress())) {
            assertThat(busy.isBound() && busyClient.isBound()).isTrue();
            String busyMembers = "n1=127.0.0.1:" + ports.get(2) + ",n2=127.0.0.1:" + ports.get(1);
            Map<String, Object[]> cases = new LinkedHashMap<>();
            cases.put("unknown flag", new Object[] {2, List.of("tandem server: Unknown options: '--colour', 'red'", "Run ./tandem server --help"),
                    List.of("server", "--colour", "red")});
            cases.put("bad config", new Object[] {2, List.of("bad.conf line 3: unknown key 'election-timeout'; known keys: id, members"),
                    List.of("server", "--config", config.toString(), "--data-dir", dir.resolve("d1").toString())});
            cases.put("missing setting", new Object[] {2, List.of("missing setting 'data-dir'", "pass --data-dir or --config FILE"),
                    List.of("server", "--id", "n1", "--members", members)});
            cases.put("unknown protocol", new Object[] {2, List.of("--protocol: protocol: unknown protocol 'paxos'; known: ", "raft", "toy-pb"),
                    List.of("server", "--id", "n1", "--members", members, "--data-dir", dir.resolve("d2").toString(), "--protocol", "paxos")});
            cases.put("peer port in use", new Object[] {1, List.of("tandem server: cannot listen for peers on 127.0.0.1:" + ports.get(2) + ": the address is already in use"),
                    List.of("server", "--id", "n1", "--members", busyMembers, "--client-port", Integer.toString(ports.get(0)), "--data-dir", dir.resolve("d3").toString())});
            cases.put("client port in use", new Object[] {1, List.of("tandem server: cannot listen for clients on 127.0.0.1:" + ports.get(3) + ": the address is already in use"),
                    List.of("server", "--id", "n1", "--members", members, "--client-port", Integer.toString(ports.get(3)), "--data-dir", dir.resolve("d4").toString())});
            cases.put("another cluster's data", new Object[] {1, List.of("data directory " + otherCluster + " cannot be used by n1 of cluster 'tandem'", "someone-else"),
                    List.of("server", "--id", "n1", "--members", members, "--data-dir", otherCluster.toString())});
            Path aFile = Files.writeString(dir.resolve("a-file"), "not a directory");
            cases.put("data directory is a file", new Object[] {1, List.of("tandem server: cannot use data directory " + aFile + ": opening data directory " + aFile + ": " + aFile + ": "),
                    List.of("server", "--id", "n1", "--members", "n1=127.0.0.1:" + ports.get(4) + ",n2=127.0.0.1:" + ports.get(5),
                            "--client-port", Integer.toString(ports.get(5)), "--data-dir", aFile.toString())});
            cases.put("cluster dir under a file", new Object[] {1, List.of("tandem cluster: cannot write the cluster's files in " + aFile.resolve("cluster") + ": " + aFile.resolve("cluster")),
                    List.of("cluster", "--dir", aFile.resolve("cluster").toString(), "--base-port", Integer.toString(FreePorts.baseForLocalCluster(3)))});

            List<Case> running = new ArrayList<>();
            try {
                for (var e : cases.entrySet()) {
                    @SuppressWarnings("unchecked") List<String> args = (List<String>) e.getValue()[2];
                    @SuppressWarnings("unchecked") List<String> messages = (List<String>) e.getValue()[1];
                    running.add(new Case(e.getKey(), (Integer) e.getValue()[0], messages,
                            TandemProcess.start(dir.resolve(e.getKey().replace(' ', '-') + ".out"), args.toArray(String[]::new))));
                }
                for (Case c : running) {
                    int status = c.process().awaitExit(Duration.ofSeconds(60));
                    String out = c.process().output();
                    assertThat(status).as("%s exit status; output:%n%s", c.name(), out).isEqualTo(c.status());
                    for (String m : c.messages()) assertThat(out).as(c.name()).contains(m);
                    assertThat(out).as("%s: one clear message, no stack trace", c.name()).doesNotContain("\tat ");
                }
            } finally {
                for (Case c : running) c.process().close();
            }
        }
    }
}
