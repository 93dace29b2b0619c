package io.tandem.jepsen.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.history.Keyword;
import io.tandem.jepsen.nemesis.FaultKind;
import io.tandem.jepsen.nemesis.NemesisSpec;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkloadSpecTest {
    private static Path workloads() {
        return Path.of(System.getProperty("tandem.jepsen.root", "."), "workloads");
    }

    @Test
    void theSharedRegisterSpecReadsAsJepsensLinearizableRegisterTest() {
        WorkloadSpec s = WorkloadSpec.load(workloads().resolve("register.edn"));
        assertThat(s.kind()).isEqualTo(WorkloadSpec.REGISTER);
        assertThat(s.concurrency(5)).isEqualTo(10);
        assertThat(s.threadsPerKey(5)).isEqualTo(10);
        assertThat(s.readersPerKey(5)).isEqualTo(5);
        assertThat(s.mix()).containsExactly(Keyword.of("write"), Keyword.of("cas"), Keyword.of("cas"));
        assertThat(s.values()).isEqualTo(5);
        assertThat(s.opsPerKey()).isEqualTo(200);
        assertThat(s.timeLimit()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.nemesis().faults()).containsExactlyInAnyOrder(FaultKind.PARTITION, FaultKind.KILL, FaultKind.PAUSE);
        assertThat(s.nemesis().interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.nemesis().targetsOf(FaultKind.PARTITION)).contains(Keyword.of("majorities-ring"), Keyword.of("one-way"));
        assertThat(s.nemesis().packetBehaviors()).hasSize(3);
        assertThat(s.nemesis().packetBehaviors().getFirst().delayMillis()).isEqualTo(50);
        assertThat(s.nemesis().diskIops()).isEqualTo(50);
    }

    @Test
    void theVirtualSynchronySetSpecTakesItsFaultsOneAtATimeOverAMinority() {
        WorkloadSpec s = WorkloadSpec.load(workloads().resolve("set-vsync.edn"));
        assertThat(s.nemesis().schedule()).isEqualTo(NemesisSpec.Schedule.ONE_AT_A_TIME);
        assertThat(s.nemesis().targetsOf(FaultKind.KILL)).doesNotContain(Keyword.of("all"), Keyword.of("majority"));
        // The register spec keeps Jepsen's overlapping packages, whose default targets include :all.
        WorkloadSpec register = WorkloadSpec.load(workloads().resolve("register.edn"));
        assertThat(register.nemesis().schedule()).isEqualTo(NemesisSpec.Schedule.STAGGERED);
        assertThatThrownBy(() -> register.nemesis().withSchedule(NemesisSpec.Schedule.ONE_AT_A_TIME))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most a minority");
    }

    @Test
    void theShardKillSpecKillsWholeShardsOneAtATime() {
        WorkloadSpec s = WorkloadSpec.load(workloads().resolve("register-vsync-shard-kill.edn"));
        assertThat(s.nemesis().schedule()).isEqualTo(NemesisSpec.Schedule.ONE_AT_A_TIME);
        assertThat(s.nemesis().faults()).containsExactly(FaultKind.KILL);
        assertThat(s.nemesis().targetsOf(FaultKind.KILL)).containsExactly(Keyword.of("shard"));
    }

    @Test
    void theSharedSetSpecReads() {
        WorkloadSpec s = WorkloadSpec.load(workloads().resolve("set.edn"));
        assertThat(s.kind()).isEqualTo(WorkloadSpec.SET);
        assertThat(s.elementsPerSet()).isEqualTo(300);
        assertThat(s.readFraction()).isEqualTo(0.2);
        assertThat(s.finalReads()).isTrue();
    }

    @Test
    void countsMayBeRelativeToTheNodes() {
        WorkloadSpec s = WorkloadSpec.parse("t", "{:concurrency \"3n\" :threads-per-key 4 :readers-per-key \"n\"}");
        assertThat(s.concurrency(3)).isEqualTo(9);
        assertThat(s.threadsPerKey(3)).isEqualTo(4);
        assertThat(s.readersPerKey(7)).isEqualTo(7);
    }

    @Test
    void errorsNameTheFileAndTheKey() {
        assertThatThrownBy(() -> WorkloadSpec.parse("w.edn", "{:values \"five\"}"))
                .isInstanceOf(SpecException.class).hasMessageContaining("w.edn").hasMessageContaining(":values");
        assertThatThrownBy(() -> WorkloadSpec.parse("w.edn", "{:workload :bank}")).hasMessageContaining(":bank");
        assertThatThrownBy(() -> WorkloadSpec.parse("w.edn", "{:mix [:write :delete]}")).hasMessageContaining(":delete");
        assertThatThrownBy(() -> WorkloadSpec.parse("w.edn", "{:nemesis {:faults #{:meteor}}}")).hasMessageContaining("meteor");
        assertThatThrownBy(() -> WorkloadSpec.parse("w.edn", "{:values 5")).isInstanceOf(SpecException.class).hasMessageContaining("w.edn");
        assertThatThrownBy(() -> WorkloadSpec.parse("w.edn", "{:concurrency \"xn\"}").concurrency(5)).hasMessageContaining(":concurrency");
    }

    @Test
    void faultListsParseWithAllNoneAndAliases() {
        assertThat(FaultKind.parse("all")).containsExactlyInAnyOrder(FaultKind.values());
        assertThat(FaultKind.parse("none")).isEmpty();
        assertThat(FaultKind.parse("partition, slow-net,clock")).containsExactlyInAnyOrder(FaultKind.PARTITION, FaultKind.PACKET, FaultKind.CLOCK);
        assertThatThrownBy(() -> FaultKind.parse("partition,flood")).hasMessageContaining("flood").hasMessageContaining("slow-cpu");
    }
}
