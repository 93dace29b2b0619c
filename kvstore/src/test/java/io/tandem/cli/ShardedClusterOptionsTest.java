package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tandem cluster --shards}: combinations that cannot work are refused with exit 2 before anything is written or started. */
class ShardedClusterOptionsTest {
    @TempDir
    Path dir;

    private String refused(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        List<String> all = new ArrayList<>(List.of("cluster", "--dir", dir.resolve("c").toString()));
        all.addAll(List.of(args));
        assertThat(cli.execute(all.toArray(String[]::new))).as(out::toString).isEqualTo(2);
        assertThat(Files.exists(dir.resolve("c"))).isFalse();
        return out.toString();
    }

    @Test
    void shardsThatCannotWorkAreRefusedBeforeAnythingStarts() {
        assertThat(refused("--protocol", "raft", "--shards", "2")).contains("--shards needs a protocol that splits its group into shards: raft cannot split its group into shards");
        assertThat(refused("--protocol", "virtual-synchrony", "--nodes", "3", "--shards", "2", "--shard-replicas", "2"))
                .contains("2 shards of at least 2 replicas need 4 members, but the group has 3");
        assertThat(refused("--protocol", "virtual-synchrony", "--nodes", "3", "--shards", "4")).contains("4 shards of at least 1 replica need 4 members");
        assertThat(refused("--protocol", "virtual-synchrony", "--shard-replicas", "2")).contains("--shard-replicas needs --shards");
        assertThat(refused("--protocol", "virtual-synchrony", "--nodes", "5", "--shards", "2", "--execution", "psmr")).contains("cannot be combined with --execution psmr");
    }

    @Test
    void theDemoAsksTheProtocolWhetherItShards() {
        StringWriter out = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        assertThat(cli.execute("demo", "--dir", dir.resolve("d").toString(), "--protocol", "multipaxos", "--shards", "2")).as(out::toString).isEqualTo(2);
        assertThat(out.toString()).contains("--shards needs a protocol that splits its group into shards: multipaxos cannot split its group into shards");
        assertThat(Files.exists(dir.resolve("d"))).isFalse();
    }

    @Test
    void aShardedLayoutIsWrittenIntoEveryServerConfigAndReadBack() {
        LocalCluster c = LocalCluster.layout(dir.resolve("l"), 5, 23600, "virtual-synchrony", false, "sequential", 1).withShards(2, 2);
        c.writeFiles();
        LocalCluster back = LocalCluster.read(dir.resolve("l")).orElseThrow();
        assertThat(back.shards()).isEqualTo(2);
        assertThat(back.sameShape(c)).isTrue();
        assertThat(back.sameShape(LocalCluster.layout(dir.resolve("l"), 5, 23600, "virtual-synchrony", false, "sequential", 1))).isFalse();
        var config = io.tandem.kv.server.ServerConfig.load(c.configFile(c.nodes().getFirst()), java.util.Map.of());
        assertThat(config.shards()).isEqualTo(2);
        assertThat(config.shardReplicas()).isEqualTo(2);
    }
}
