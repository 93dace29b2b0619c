package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.kv.testing.FreePorts;
import io.tandem.kv.testing.TandemProcess;
import io.tandem.testing.Await;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The path a new user takes: {@code tandem cluster} in the foreground (its own process), one-off
 * commands that find it through its directory, {@code tandem demo} against it (killing and
 * restarting the leader, verifying every write), a graceful stop, and a demo that starts and stops
 * a cluster of its own.
 */
class LocalClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private record Run(int exit, String out, String err) {}

    private static Run tandem(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static List<Long> pidsIn(Path dir) throws Exception {
        List<Long> pids = new ArrayList<>();
        for (String n : List.of("n1", "n2", "n3")) {
            Path f = dir.resolve(n).resolve("server.pid");
            if (Files.exists(f)) pids.add(Long.parseLong(Files.readString(f, StandardCharsets.US_ASCII).strip()));
        }
        return pids;
    }

    @Test
    void clusterCommandsAndDemo(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("tandem-data");
        int base = FreePorts.baseForLocalCluster(3);
        List<Long> nodePids = new ArrayList<>();
        try (TandemProcess cluster = TandemProcess.start(tmp.resolve("cluster.out"), "cluster", "--dir", dir.toString(), "--base-port", Integer.toString(base), "--no-fsync")) {
            try {
                Await.until(WAIT, () -> cluster.output().contains("Press Ctrl-C to stop the cluster") || !cluster.isAlive(), cluster::output);
                assertThat(cluster.output()).contains("Starting a 3-node raft cluster in " + dir)
                        .contains("./tandem put greeting hello --dir " + dir).contains("./tandem cluster --dir " + dir + " --stop").contains("n1  pid").contains("client 127.0.0.1:" + (base + 1000))
                        .contains("metrics http://127.0.0.1:" + (base + 2000) + "/metrics").contains("leads (epoch");
                nodePids.addAll(pidsIn(dir));
                assertThat(nodePids).hasSize(3);

                // One-off commands find the cluster through its directory.
                assertThat(tandem("put", "--dir", dir.toString(), "greeting", "hello")).isEqualTo(new Run(0, "OK\n", ""));
                assertThat(tandem("get", "--dir", dir.toString(), "greeting")).isEqualTo(new Run(0, "hello\n", ""));

                Run again = tandem("cluster", "--dir", dir.toString(), "--base-port", Integer.toString(base));
                assertThat(again.exit()).isEqualTo(1);
                assertThat(again.err()).contains("a cluster is already running from " + dir + " (n1 pid " + nodePids.getFirst());

                Run demo = tandem("demo", "--dir", dir.toString(), "--duration", "6s", "--kill-after", "2s", "--clients", "4", "--keys", "400");
                assertThat(demo.exit()).as(demo.out() + demo.err()).isZero();
                assertThat(demo.out()).contains("Using the cluster running in " + dir + " (3 of 3 nodes up)")
                        .contains("killed the leader").contains("is the new leader (epoch").contains("which was killed... back (pid")
                        .contains("every acknowledged write is there (0 lost); 0 stale reads during the run")
                        .contains("latency (ms)").contains("writes paused for");
                assertThat(demo.out()).doesNotContain("Stopping the cluster");
                Await.until(WAIT, () -> cluster.output().contains(" is down (process ") && cluster.output().contains(" is up (pid "), cluster::output);
                nodePids.addAll(pidsIn(dir)); // the restarted node
            } finally {
                // SIGTERM, as Ctrl-C would: the cluster command stops every node, including the one the demo restarted.
                assertThat(cluster.terminate(WAIT)).as("exit status; the cluster printed:%n%s", cluster.output()).isEqualTo(143);
            }
            assertThat(cluster.output()).contains("Stopping the cluster...").contains("Stopped.");
        }
        for (long pid : nodePids) assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("node pid %d stopped", pid).isFalse();
        assertThat(pidsIn(dir)).isEmpty();
        assertThat(tandem("cluster", "--stop", "--dir", dir.toString()).out()).contains("No node of the cluster in " + dir + " is running.");

        // Stopped from another terminal, the foreground command ends quietly instead of reporting nodes down.
        try (TandemProcess cluster = TandemProcess.start(tmp.resolve("cluster2.out"), "cluster", "--dir", dir.toString(), "--base-port", Integer.toString(base), "--no-fsync")) {
            Await.until(WAIT, () -> cluster.output().contains("Press Ctrl-C to stop the cluster") || !cluster.isAlive(), cluster::output);
            Run stop = tandem("cluster", "--stop", "--dir", dir.toString());
            assertThat(stop.exit()).as(stop.out() + stop.err()).isZero();
            assertThat(cluster.awaitExit(WAIT)).as(cluster.output()).isZero();
            assertThat(cluster.output()).contains("The cluster was stopped with ./tandem cluster --stop.").doesNotContain(" is down (process ");
        }
        assertThat(pidsIn(dir)).isEmpty();

        // A demo with no cluster running starts one, and stops it at the end.
        Path own = tmp.resolve("own");
        int ownBase = FreePorts.baseForLocalCluster(3);
        Run demo = tandem("demo", "--dir", own.toString(), "--base-port", Integer.toString(ownBase), "--duration", "2s", "--no-kill", "--clients", "2", "--keys", "100", "--no-fsync");
        assertThat(demo.exit()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out()).contains("No cluster is running in " + own + ": starting a 3-node raft cluster (no fsync).")
                .contains("0 lost").contains("Stopping the cluster the demo started... stopped.");
        assertThat(pidsIn(own)).isEmpty();
        for (String n : List.of("n1", "n2", "n3")) assertThat(Files.readString(own.resolve(n).resolve("server.log"))).contains(n + " stopped");

        // Without --dir, a cluster the demo starts lives in a fresh directory beside the default one and
        // is removed at the end: the demo's keys never reach a cluster the user starts later.
        Path cwd = Path.of("").toAbsolutePath();
        List<Path> before = demoDirectories(cwd);
        boolean defaultDirExisted = Files.exists(cwd.resolve("tandem-data"));
        Run fresh = tandem("demo", "--base-port", Integer.toString(FreePorts.baseForLocalCluster(3)), "--duration", "2s", "--no-kill", "--clients", "2", "--keys", "100", "--no-fsync");
        assertThat(fresh.exit()).as(fresh.out() + fresh.err()).isZero();
        assertThat(fresh.out()).contains("stopped, and its directory removed.");
        assertThat(demoDirectories(cwd)).isEqualTo(before);
        assertThat(Files.exists(cwd.resolve("tandem-data"))).isEqualTo(defaultDirExisted);
    }

    private static List<Path> demoDirectories(Path dir) throws Exception {
        try (var all = Files.list(dir)) {
            return all.filter(p -> p.getFileName().toString().startsWith("tandem-data-demo-")).sorted().toList();
        }
    }
}
