package io.tandem.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.testing.Await;
import io.tandem.testing.TestMessages;
import io.tandem.testing.TestMessages.Ping;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultInjectingTransportTest {
    private final NodeId a = NodeId.of("a");
    private final NodeId b = NodeId.of("b");
    private final NodeId c = NodeId.of("c");
    private LocalNetwork network;
    private FaultInjectingTransport ta;
    private FaultInjectingTransport tb;
    private FaultInjectingTransport tc;
    private final List<Long> atB = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> atA = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> atC = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void setUp() {
        network = new LocalNetwork(List.of(a, b, c), TestMessages.codec());
        ta = new FaultInjectingTransport(network.transport(a), 1);
        tb = new FaultInjectingTransport(network.transport(b), 2);
        tc = new FaultInjectingTransport(network.transport(c), 3);
        ta.start(recorder(atA));
        tb.start(recorder(atB));
        tc.start(recorder(atC));
    }

    @AfterEach
    void tearDown() {
        ta.close();
        tb.close();
        tc.close();
    }

    private static TransportListener recorder(List<Long> into) {
        return (NodeId from, ProtocolMessage m) -> into.add(((Ping) m).sequence());
    }

    private static Ping ping(long seq) {
        return new Ping(1, seq, new byte[0]);
    }

    @Test
    void withoutFaultsEverythingArrivesInOrder() {
        for (long i = 0; i < 100; i++) assertThat(ta.send(b, ping(i))).isTrue();
        assertThat(atB).hasSize(100).isSorted();
    }

    @Test
    void aSymmetricPartitionDropsBothWaysAndHeals() {
        ta.setPlan(FaultPlan.NONE.partition(Set.of(a), Set.of(b)));
        tb.setPlan(ta.plan());
        ta.send(b, ping(1));
        tb.send(a, ping(2));
        ta.send(c, ping(3));
        assertThat(atB).isEmpty();
        assertThat(atA).isEmpty();
        assertThat(atC).containsExactly(3L);
        assertThat(ta.droppedByPartition() + tb.droppedByPartition()).isEqualTo(2);
        ta.heal();
        tb.heal();
        ta.send(b, ping(4));
        assertThat(atB).containsExactly(4L);
    }

    @Test
    void aOneWayPartitionBlocksOnlyOneDirection() {
        FaultPlan plan = FaultPlan.NONE.oneWay(a, b);
        ta.setPlan(plan);
        tb.setPlan(plan);
        ta.send(b, ping(1));
        tb.send(a, ping(2));
        assertThat(atB).isEmpty();
        assertThat(atA).containsExactly(2L);
    }

    @Test
    void aPartitionSetOnlyAtTheReceiverStillHolds() {
        tb.setPlan(FaultPlan.NONE.oneWay(a, b));
        ta.send(b, ping(1));
        assertThat(atB).isEmpty();
        assertThat(tb.droppedByPartition()).isEqualTo(1);
    }

    @Test
    void fullLossDropsEverythingAndIsCounted() {
        ta.setPlan(FaultPlan.NONE.withLoss(1.0));
        for (long i = 0; i < 10; i++) ta.send(b, ping(i));
        assertThat(atB).isEmpty();
        assertThat(ta.droppedByLoss()).isEqualTo(10);
    }

    @Test
    void fullDuplicationDeliversTwice() {
        ta.setPlan(FaultPlan.NONE.withDuplication(1.0));
        ta.send(b, ping(1));
        assertThat(atB).containsExactly(1L, 1L);
        assertThat(ta.duplicated()).isEqualTo(1);
    }

    @Test
    void delayWithJitterKeepsPerPeerOrderWithoutReordering() {
        ta.setPlan(FaultPlan.NONE.withDelay(Duration.ofMillis(2), Duration.ofMillis(5)));
        for (long i = 0; i < 200; i++) ta.send(b, ping(i));
        Await.until(Duration.ofSeconds(10), () -> atB.size() == 200, () -> "delivered " + atB.size() + " of 200");
        assertThat(atB).isSorted();
        assertThat(ta.delayed()).isEqualTo(200);
    }

    @Test
    void reorderingLetsMessagesOvertakeEachOther() {
        ta.setPlan(FaultPlan.NONE.withDelay(Duration.ZERO, Duration.ofMillis(20)).withReordering(1.0));
        for (long i = 0; i < 200; i++) ta.send(b, ping(i));
        Await.until(Duration.ofSeconds(10), () -> atB.size() == 200, () -> "delivered " + atB.size() + " of 200");
        assertThat(atB).containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.range(0, 200).boxed().toList());
        assertThat(atB).isNotEqualTo(java.util.stream.LongStream.range(0, 200).boxed().toList());
    }

    @Test
    void aSlowNodeDelaysOnlyItsOwnTraffic() {
        FaultPlan plan = FaultPlan.NONE.withSlowNode(b, Duration.ofMillis(300));
        ta.setPlan(plan);
        ta.send(b, ping(1));
        ta.send(c, ping(2));
        assertThat(atC).containsExactly(2L); // immediately: c is not slow
        assertThat(atB).isEmpty();
        Await.until(Duration.ofSeconds(10), () -> atB.size() == 1, () -> "slow message not delivered");
    }

    @Test
    void planValidationNamesTheBadSetting() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FaultPlan.NONE.withLoss(1.5)).hasMessageContaining("lossRate");
    }

    @Test
    void aRegionPushAcrossAPartitionDoesNotLandAndCompletesAsNotApplied() {
        for (FaultInjectingTransport t : List.of(ta, tb, tc)) t.regions().register("r", 8);
        ta.setPlan(FaultPlan.NONE.partition(Set.of(a), Set.of(b)));
        ta.regions().local("r").set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 6);
        ta.regions().push("r", 0, 8, List.of(b, c));
        assertThat(tc.regions().remote(a, "r").get(java.lang.foreign.ValueLayout.JAVA_LONG, 0)).isEqualTo(6);
        assertThat(tb.regions().remote(a, "r").get(java.lang.foreign.ValueLayout.JAVA_LONG, 0)).as("across the partition").isZero();
        ta.heal();
        ta.regions().push("r", 0, 8, List.of(b));
        assertThat(tb.regions().remote(a, "r").get(java.lang.foreign.ValueLayout.JAVA_LONG, 0)).isEqualTo(6);
        assertThat(ta.droppedByPartition()).isEqualTo(1);
    }
}
