package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FaultScheduleTest {
    private static final List<NodeId> FIVE = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"), NodeId.of("n4"), NodeId.of("n5"));

    @Test
    void theTextFormRoundTrips() {
        SimOptions options = SimOptions.defaults().withFaultRate(5, SimTime.millis(300));
        FaultSchedule generated = FaultSchedule.generate(new SplittableRandom(7), options, FIVE);
        assertThat(generated.size()).isGreaterThan(10);
        assertThat(FaultSchedule.parse(generated.format())).isEqualTo(generated);
    }

    @Test
    void generationIsAFunctionOfTheSeedAndTheFaultList() {
        SimOptions options = SimOptions.defaults().withFaultRate(5, SimTime.millis(300));
        assertThat(FaultSchedule.generate(new SplittableRandom(3), options, FIVE))
                .isEqualTo(FaultSchedule.generate(new SplittableRandom(3), options, FIVE))
                .isNotEqualTo(FaultSchedule.generate(new SplittableRandom(4), options, FIVE));

        FaultSchedule crashesOnly = FaultSchedule.generate(new SplittableRandom(3), options.withFaults(EnumSet.of(FaultKind.CRASH)), FIVE);
        assertThat(crashesOnly.events()).isNotEmpty().allSatisfy(s -> assertThat(s.fault()).isInstanceOfAny(Fault.Crash.class, Fault.Restart.class));
        assertThat(FaultSchedule.generate(new SplittableRandom(3), options.withFaults(EnumSet.noneOf(FaultKind.class)), FIVE).events()).isEmpty();
        assertThat(crashesOnly.events()).isSortedAccordingTo(java.util.Comparator.comparingLong(Fault.Scheduled::atNanos));
        assertThat(crashesOnly.events()).allSatisfy(s -> assertThat(s.atNanos()).isLessThan(options.durationNanos()));
    }

    @Test
    void partitionShapesCutWhatTheySay() {
        SplittableRandom random = new SplittableRandom(11);
        boolean sawOneWay = false;
        boolean sawRing = false;
        for (int i = 0; i < 200; i++) {
            Fault.Partition p = FaultSchedule.partition(random, FIVE);
            assertThat(p.blocked()).isNotEmpty();
            assertThat(p.blocked()).allSatisfy(l -> assertThat(l.from()).isNotEqualTo(l.to()));
            switch (p.shape()) {
                case "one-way" -> {
                    sawOneWay = true;
                    assertThat(p.blocked()).hasSize(4).allSatisfy(l -> assertThat(p.blocked()).doesNotContain(new Fault.Link(l.to(), l.from())));
                }
                case "ring" -> {
                    sawRing = true;
                    for (NodeId n : FIVE) {
                        long unreachable = p.blocked().stream().filter(l -> l.from().equals(n)).count();
                        assertThat(unreachable).isEqualTo(2); // sees itself and two neighbours: a majority
                    }
                }
                case "isolate", "halves", "bridge" -> assertThat(p.blocked()).allSatisfy(l -> assertThat(p.blocked()).contains(new Fault.Link(l.to(), l.from())));
                default -> throw new AssertionError(p.shape());
            }
        }
        assertThat(sawOneWay).isTrue();
        assertThat(sawRing).isTrue();
    }

    @Test
    void faultListsParse() {
        assertThat(FaultKind.parseList("all")).isEqualTo(EnumSet.allOf(FaultKind.class));
        assertThat(FaultKind.parseList("crash, partition")).isEqualTo(EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION));
        assertThat(FaultKind.formatList(EnumSet.of(FaultKind.PARTITION, FaultKind.CRASH))).isEqualTo("partition,crash");
        assertThatThrownBy(() -> FaultKind.parseList("meteor")).hasMessageContaining("unknown fault 'meteor'");
        assertThat(Latency.parse("exp:100us:2ms")).isEqualTo(new Latency.Exponential(100_000, 2_000_000));
        assertThat(Latency.parse(new Latency.Uniform(5, 7_000).format())).isEqualTo(new Latency.Uniform(5, 7_000));
        assertThat(SimTime.parse("1.5s")).isEqualTo(1_500_000_000L);
    }
}
