package io.tandem.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.bench.SteadyState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PlanAndOptionsTest {
    static PeerBenchmark.Settings settings(String... args) {
        CommandLine cl = PeerBenchmark.commandLine(args);
        cl.parseArgs(args);
        return ((PeerBenchmark) cl.getCommand()).settings();
    }

    @Test
    void runsAreInterleavedAndAlternateTheSystemOrder() {
        List<Config> configs = List.of(new Config(64, false), new Config(64, true));
        List<Plan.Trial> plan = Plan.trials(2, configs, List.of("a", "b", "c"));
        assertThat(plan).hasSize(12);
        assertThat(plan.subList(0, 6)).allMatch(t -> t.run() == 1);
        assertThat(plan.subList(0, 3)).extracting(Plan.Trial::system).containsExactly("a", "b", "c");
        assertThat(plan.subList(3, 6)).allMatch(t -> t.config().fsync());
        assertThat(plan.subList(6, 9)).extracting(Plan.Trial::system).containsExactly("c", "b", "a");
        assertThat(plan.get(6).tag()).isEqualTo("run2-64B-nofsync-c");
        assertThatThrownBy(() -> Plan.trials(0, configs, List.of("a"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void configurationIdsRoundTrip() {
        for (Config c : Config.ALL) assertThat(Config.parse(c.id())).isEqualTo(c);
        assertThat(Config.parse("1024B-fsync")).isEqualTo(new Config(1024, true));
        for (String bad : List.of("64", "64B-maybe", "xB-fsync", "0B-fsync", "")) {
            assertThatThrownBy(() -> Config.parse(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void quickAndFullModesFillInTheirPresets() {
        PeerBenchmark.Settings q = settings();
        assertThat(q.runs()).isEqualTo(1);
        assertThat(q.configs()).extracting(Config::id).containsExactly("64B-nofsync", "64B-fsync");
        assertThat(q.warmup()).isEqualTo(10);
        assertThat(q.warmupRule()).isEqualTo(new SteadyState(10, 60, 5, 0.05, 5));
        assertThat(q.measure()).isEqualTo(10);
        assertThat(q.kinds()).containsExactly(Slowdown.Kind.cpu);
        assertThat(q.slowTargets()).containsExactly(Slowdown.Target.follower);
        assertThat(q.systems()).isEqualTo(SystemCatalog.DEFAULT_SYSTEMS);
        assertThat(q.systemsExplicit()).isFalse();
        assertThat(q.clients()).isEqualTo(16);
        PeerBenchmark.Settings f = settings("--mode", "FULL", "--measure", "40");
        assertThat(f.runs()).isEqualTo(3);
        assertThat(f.configs()).hasSize(4);
        assertThat(f.warmup()).isEqualTo(20);
        assertThat(f.warmupRule().maxSeconds()).isEqualTo(120);
        assertThat(settings("--warmup", "15", "--max-warmup", "15").warmupRule().adaptive()).isFalse();
        assertThat(settings("--warmup", "90").warmupRule().maxSeconds()).isEqualTo(90);
        assertThat(settings("--max-jit-percent", "2").warmupRule().maxJitPercent()).isEqualTo(2.0);
        assertThat(f.measure()).isEqualTo(40);
        assertThat(f.kinds()).containsExactly(Slowdown.Kind.cpu, Slowdown.Kind.pause, Slowdown.Kind.net);
        assertThat(f.slowTargets()).containsExactly(Slowdown.Target.follower, Slowdown.Target.leader);
        assertThat(settings("--slow-targets", "leader").slowTargets()).containsExactly(Slowdown.Target.leader);
        PeerBenchmark.Settings o = settings("--systems", "ratis,tandem-raft,ratis", "--slowdown", "none", "--configs", "1024B-fsync");
        assertThat(o.systems()).containsExactly("ratis", "tandem-raft");
        assertThat(o.systemsExplicit()).isTrue();
        assertThat(o.kinds()).isEmpty();
        assertThat(o.configs()).containsExactly(new Config(1024, true));
    }

    @Test
    void badOptionsFailWithAClearMessage() {
        assertThatThrownBy(() -> settings("--systems", "etcd")).hasMessageContaining("unknown system 'etcd'").hasMessageContaining("tandem-raft");
        assertThatThrownBy(() -> settings("--configs", "64B-sometimes")).hasMessageContaining("not a configuration id");
        assertThatThrownBy(() -> settings("--warmup", "30", "--max-warmup", "20")).hasMessageContaining("--max-warmup must be >= --warmup");
        assertThatThrownBy(() -> settings("--max-jit-percent", "-1")).hasMessageContaining("--max-jit-percent");
        assertThatThrownBy(() -> settings("--slowdown", "disk")).hasMessageContaining("unknown slowdown kind 'disk'");
        assertThatThrownBy(() -> settings("--configs", "none", "--slowdown", "none")).hasMessageContaining("nothing to do");
        assertThatThrownBy(() -> settings("--runs", "0")).hasMessageContaining("--runs");
        assertThatThrownBy(() -> settings("--slow-targets", "candidate")).hasMessageContaining("unknown slowdown target 'candidate'");
        assertThatThrownBy(() -> settings("--measure", "0")).hasMessageContaining("--measure");
        assertThatThrownBy(() -> settings("--clients", "0")).hasMessageContaining("--clients");
        assertThatThrownBy(() -> settings("--base-port", "65000")).hasMessageContaining("--base-port");
        assertThatThrownBy(() -> settings("--heap", "lots")).hasMessageContaining("--heap");
        assertThatThrownBy(() -> settings("--cpu-percent", "0.5", "--cpu-period-ms", "100")).hasMessageContaining("1000 us minimum");
        assertThatThrownBy(() -> settings("--pause-ms", "1000", "--pause-period-ms", "1000")).hasMessageContaining("pause period");
        assertThatThrownBy(() -> settings("--tandem-admin-port-offset", "20")).hasMessageContaining("0..19");
    }

    @Test
    void missingJarsMakeSystemsSkippedWithTheReason(@TempDir Path repo) throws IOException {
        Path jar = repo.resolve("peers/tandem/target/peer-tandem.jar");
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, "");
        List<SystemCatalog.Availability> a = SystemCatalog.resolve(List.of("tandem-raft", "tandem-unreplicated", "ratis"), repo);
        assertThat(a.get(0)).isEqualTo(new SystemCatalog.Availability.Available(SystemCatalog.spec("tandem-raft"), jar));
        assertThat(a.get(1)).isInstanceOf(SystemCatalog.Availability.Available.class);
        assertThat(a.get(1).spec().replicas()).isEqualTo(1);
        assertThat(a.get(2)).isInstanceOfSatisfying(SystemCatalog.Availability.Skipped.class,
                s -> assertThat(s.reason()).contains("peers/ratis/target/peer-ratis.jar"));
        assertThat(SystemCatalog.modules(SystemCatalog.DEFAULT_SYSTEMS)).containsExactly("tandem", "ratis", "jgroups-raft", "sofajraft", "aeron");
        assertThat(SystemCatalog.spec("aeron-cluster").jar(repo)).isEqualTo(repo.resolve("peers/aeron/target/peer-aeron.jar"));
    }

    @Test
    void leftoverJvmsAreRecognisedByTheExactWorkDirectory() {
        String marker = "-D" + PeerRunner.MARKER_PROPERTY + "=/var/tmp/pb";
        assertThat(PeerRunner.isLeftover("java -Xms1g " + marker + " -jar x.jar replica", marker)).isTrue();
        assertThat(PeerRunner.isLeftover("java " + marker, marker)).isTrue();
        assertThat(PeerRunner.isLeftover("java " + marker + "2 -jar x.jar", marker)).isFalse();
        assertThat(PeerRunner.isLeftover("java -jar x.jar", marker)).isFalse();
    }

    @Test
    void optionsGoToTheirSystemOrToEverySystem() {
        PeerBenchmark.Settings s = settings("--systems", "tandem-raft,ratis", "--opt", "ratis:log-metadata=false", "--opt", "snapshot-threshold=9",
                "--opt", "tandem-raft:peer=127.0.0.1:9", "--load-opt", "tandem-raft:request-timeout=20s");
        assertThat(s.optionsFor("ratis")).containsExactly("log-metadata=false", "snapshot-threshold=9");
        assertThat(s.optionsFor("tandem-raft")).containsExactly("snapshot-threshold=9", "peer=127.0.0.1:9");
        assertThat(s.loadOptionsFor("tandem-raft")).containsExactly("request-timeout=20s");
        assertThat(s.loadOptionsFor("ratis")).isEmpty();
        assertThat(settings().optionsFor("tandem-raft")).isEmpty();
        assertThatThrownBy(() -> settings("--systems", "tandem-raft", "--opt", "ratis:log-metadata=false"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ratis is not among the systems run");
        assertThatThrownBy(() -> settings("--opt", "nosuch:x=1")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown system 'nosuch'");
        assertThatThrownBy(() -> settings("--load-opt", "novalue")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--load-opt");
        assertThatThrownBy(() -> settings("--opt", "ratis:=1")).isInstanceOf(IllegalArgumentException.class);
    }
}
