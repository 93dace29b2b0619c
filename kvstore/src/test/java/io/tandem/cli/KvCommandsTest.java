package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.kv.testing.FreePorts;
import io.tandem.kv.testing.InJvmCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The one-off commands ({@code tandem put|get|delete|cas|scan|status}) against a cluster, and their errors. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvCommandsTest {
    private InJvmCluster cluster;
    private String members;

    private record Run(int exit, String out, String err) {}

    @BeforeAll
    void startCluster(@TempDir Path dir) {
        cluster = InJvmCluster.start(dir, 3, Map.of());
        cluster.awaitLeader(Duration.ofSeconds(20));
        members = cluster.clientAddresses().stream().map(Object::toString).collect(Collectors.joining(","));
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) cluster.close();
    }

    private Run tandem(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, "--members=" + members);
        return raw(all.toArray(String[]::new));
    }

    private static Run raw(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void putGetDeleteAndTheirExitStatus() {
        assertThat(tandem("put", "cli/greeting", "hello")).isEqualTo(new Run(0, "OK\n", ""));
        assertThat(tandem("put", "cli/greeting", "hi there")).isEqualTo(new Run(0, "OK (replaced 'hello')\n", ""));
        assertThat(tandem("get", "cli/greeting")).isEqualTo(new Run(0, "hi there\n", ""));
        Run missing = tandem("get", "cli/nothing");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).isEqualTo("tandem get: key 'cli/nothing' not found\n");
        assertThat(tandem("delete", "cli/greeting")).isEqualTo(new Run(0, "deleted (was 'hi there')\n", ""));
        assertThat(tandem("delete", "cli/greeting")).isEqualTo(new Run(0, "not found (nothing deleted)\n", ""));
    }

    @Test
    void binaryValuesAndHex() {
        assertThat(tandem("put", "--hex", "00ff", "0x01020a").exit()).isZero();
        assertThat(tandem("get", "--hex", "00ff").out()).isEqualTo("0x01020a\n");
        assertThat(tandem("put", "cli/bin", "tab\there").exit()).isZero();
        assertThat(tandem("get", "cli/bin").out()).isEqualTo("tab\there\n");
        Run bad = tandem("get", "--hex", "xyz");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("KEY 'xyz' is not hex");
    }

    @Test
    void compareAndSet() {
        assertThat(tandem("cas", "--expect-absent", "cli/cas", "v1")).isEqualTo(new Run(0, "OK\n", ""));
        Run again = tandem("cas", "--expect-absent", "cli/cas", "v1");
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).isEqualTo("tandem cas: no change: the current value is 'v1'\n");
        assertThat(tandem("cas", "cli/cas", "v1", "v2")).isEqualTo(new Run(0, "OK\n", ""));
        assertThat(tandem("cas", "cli/cas", "v1", "v3").exit()).isEqualTo(1);
        assertThat(tandem("cas", "--delete", "cli/cas", "v2")).isEqualTo(new Run(0, "OK (deleted)\n", ""));
        Run gone = tandem("cas", "cli/cas", "v2", "v3");
        assertThat(gone.err()).isEqualTo("tandem cas: no change: the key does not exist\n");
        Run wrongCount = tandem("cas", "cli/cas", "v2");
        assertThat(wrongCount.exit()).isEqualTo(2);
        assertThat(wrongCount.err()).contains("expected 3 arguments (KEY EXPECTED NEW), got 2");
    }

    @Test
    void scanPagesThroughARange() {
        for (int i = 0; i < 12; i++) assertThat(tandem("put", String.format("cli/scan/%02d", i), "v" + i).exit()).isZero();
        Run all = tandem("scan", "cli/scan/", "cli/scan0");
        assertThat(all.exit()).isZero();
        assertThat(all.out().lines().toList()).hasSize(12).startsWith("cli/scan/00 = v0").endsWith("cli/scan/11 = v11");
        Run limited = tandem("scan", "cli/scan/", "cli/scan0", "--limit", "5");
        assertThat(limited.out().lines().toList()).hasSize(5);
        assertThat(limited.err()).contains("stopped after 5 entries; more follow from 'cli/scan/05'");
        assertThat(tandem("scan", "cli/none/", "cli/none0").err()).contains("(no entries)");
    }

    @Test
    void statusShowsEveryNode() {
        Run r = tandem("status");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.getFirst()).startsWith("node   client address");
        assertThat(lines.getFirst().split("\\s+")).containsSubsequence("node", "role", "leader", "epoch", "commit", "applied", "lag");
        assertThat(lines).hasSize(4);
        assertThat(lines).filteredOn(l -> l.contains("LEADER")).hasSize(1);
        assertThat(lines).filteredOn(l -> l.contains("FOLLOWER")).hasSize(2);
    }

    @Test
    void oversizedKeysAndValuesAreBadInput() {
        Run key = tandem("put", "k".repeat(1025), "v");
        assertThat(key.exit()).isEqualTo(2);
        assertThat(key.err()).isEqualTo("tandem put: key is 1025 bytes; the limit is 1024 (KEY_TOO_LARGE)\n");
        Run value = tandem("put", "k", "v".repeat(1024 * 1024 + 1));
        assertThat(value.exit()).isEqualTo(2);
        assertThat(value.err()).contains("value is 1048577 bytes; the limit is 1048576 (VALUE_TOO_LARGE)");
    }

    @Test
    void unknownCommandsAndBadFlagsAreUsageErrors() {
        Run unknown = raw("frobnicate", "x");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).startsWith("tandem: unknown command 'frobnicate'. The commands are: help, info, demo, cluster, server, put, get,")
                .contains("Run ./tandem --help");
        Run flag = tandem("get", "k", "--colour");
        assertThat(flag.exit()).isEqualTo(2);
        assertThat(flag.err()).isEqualTo("tandem get: Unknown option: '--colour'\nRun ./tandem get --help for the usage.\n");
        Run arity = tandem("put", "only-a-key");
        assertThat(arity.exit()).isEqualTo(2);
        assertThat(arity.err()).contains("Missing required parameter: 'VALUE'");
        Run members = raw("get", "k", "--members", "nonsense");
        assertThat(members.exit()).isEqualTo(2);
        assertThat(members.err()).contains("--members: endpoint 'nonsense' is not host:port");
        Run timeout = tandem("get", "k", "--timeout", "soon");
        assertThat(timeout.exit()).isEqualTo(2);
        assertThat(timeout.err()).contains("--timeout: 'soon' is not a duration");
    }

    @Test
    void noClusterRunningIsAClusterError(@TempDir Path empty) {
        String nowhere = "127.0.0.1:" + FreePorts.take(1).getFirst();
        Run r = raw("get", "k", "--members", nowhere);
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.err()).isEqualTo("tandem get: no cluster is running: nothing accepts connections at " + nowhere + "\n");
        Run local = raw("put", "k", "v", "--dir", empty.toString());
        assertThat(local.exit()).isEqualTo(local.err().isEmpty() ? 0 : 3); // the default local ports may host a real cluster here
        if (local.exit() == 3) assertThat(local.err()).contains("start one with ./tandem cluster, or pass --members");
    }
}
