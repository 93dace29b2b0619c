package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.routing.RoutingPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The durable slot record, the config's validation and the registry entry. */
class SlotRecordAndConfigTest {
    @Test
    void aSlotRecordRoundTripsAndAMalformedOneIsRefusedWithAValue() {
        Slot s = new Slot(1, 42);
        s.status = Status.ACCEPTED;
        s.promised = new Ballot(4, 3, 0);
        s.accepted = new Ballot(1, 2, 1);
        s.depView = 6;
        s.dep = 17;
        s.vouchedDep = 15;
        s.cmds = List.of(new Command(NodeId.of("n2"), 9, new ClientRequest.Session(5, 8, 6), new byte[] {1, 2, 3}, false),
                new Command(NodeId.of("n2"), 10, ClientRequest.Session.NONE, new byte[0], true));
        Slot back = SlotRecord.decode(SlotRecord.encode(s));
        assertThat(back).usingRecursiveComparison().isEqualTo(s);

        Slot unknown = new Slot(0, 0);
        assertThat(SlotRecord.decode(SlotRecord.encode(unknown)).cmds).isNull();

        byte[] bytes = SlotRecord.encode(s);
        assertThatThrownBy(() -> SlotRecord.decode(Arrays.copyOf(bytes, bytes.length - 2))).isInstanceOf(IllegalArgumentException.class);
        byte[] wrongLog = bytes.clone();
        wrongLog[1] = 7;
        assertThatThrownBy(() -> SlotRecord.decode(wrongLog)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log 7");
        assertThat(SlotRecord.digest(s.cmds, 17)).isNotEqualTo(SlotRecord.digest(s.cmds, 16)).isEqualTo(SlotRecord.digest(List.copyOf(s.cmds), 17));
    }

    /**
     * A reservation (a pilot's slots it may send for before its own vote is durable) and a record whose
     * batch is the slot's previous record's (a commit or slow-path Accept of a batch voted for already)
     * round-trip, and malformed ones are refused with a value.
     */
    @Test
    void reservationAndSameBatchRecordsRoundTripAndMalformedOnesAreRefused() {
        SlotRecord.Reservation r = new SlotRecord.Reservation(1, 4711);
        assertThat(SlotRecord.decodeAny(SlotRecord.encodeReservation(r))).isEqualTo(r);
        byte[] badLog = SlotRecord.encodeReservation(r);
        badLog[1] = 2;
        assertThatThrownBy(() -> SlotRecord.decodeAny(badLog)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log 2");
        byte[] shortOne = Arrays.copyOf(SlotRecord.encodeReservation(r), 6);
        assertThatThrownBy(() -> SlotRecord.decodeAny(shortOne)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("6 bytes");
        assertThatThrownBy(() -> SlotRecord.decodeAny(SlotRecord.encodeReservation(new SlotRecord.Reservation(0, -5)))).isInstanceOf(IllegalArgumentException.class);

        Slot s = new Slot(0, 9);
        s.status = Status.COMMITTED;
        s.promised = s.accepted = new Ballot(0, 0, 0);
        s.dep = s.vouchedDep = 3;
        s.depView = 1;
        s.cmds = List.of(new Command(NodeId.of("n1"), 1, new ClientRequest.Session(2, 1, 0), new byte[64], false));
        byte[] full = SlotRecord.encode(s), same = SlotRecord.encodeSameBatch(s);
        assertThat(same.length).isLessThan(full.length - 64);
        Object back = SlotRecord.decodeAny(same);
        assertThat(back).isInstanceOf(SlotRecord.SameBatch.class);
        Slot b = ((SlotRecord.SameBatch) back).slot();
        assertThat(b.cmds).isNull();
        assertThat(b.status).isEqualTo(Status.COMMITTED);
        assertThat(b.dep).isEqualTo(3);
        assertThat(b.depView).isEqualTo(1);
        assertThatThrownBy(() -> SlotRecord.decodeAny(Arrays.copyOf(same, same.length + 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SlotRecord.encodeSameBatch(new Slot(0, 1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theConfigIsValidated() {
        assertThatThrownBy(() -> CopilotConfig.DEFAULTS.withTimers(Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(1)))
                .hasMessageContaining("pingPongWait");
        assertThatThrownBy(() -> CopilotConfig.DEFAULTS.withLimits(0, 1, 1, 1)).hasMessageContaining("maxBatch");
        assertThat(CopilotConfig.DEFAULTS.pingPongWait()).isEqualTo(Duration.ofMillis(1));
        assertThat(CopilotConfig.DEFAULTS.takeoverTimeout()).isEqualTo(Duration.ofMillis(10));
        assertThat(CopilotConfig.DEFAULTS.withPingPong(false).pingPong()).isFalse();
    }

    @Test
    void theRegistryKnowsItAndClientsReachBothPilots() {
        assertThat(Protocols.byName("copilot")).isInstanceOf(CopilotProtocol.class);
        assertThat(Protocols.copilot().routing()).isEqualTo(RoutingPolicy.firstReply(2));
        assertThat(((CopilotProtocol) Protocols.copilot(CopilotConfig.DEFAULTS.withNullDepElimination(false))).config().nullDepElimination()).isFalse();
        List<NodeId> four = List.of(NodeId.of("a"), NodeId.of("b"), NodeId.of("c"), NodeId.of("d"));
        assertThatThrownBy(() -> Protocols.copilot().createEngine(NodeId.of("a"), four)).hasMessageContaining("odd group of at least 3");
        assertThatThrownBy(() -> Protocols.copilot().createEngine(NodeId.of("z"), four.subList(0, 3))).hasMessageContaining("not among the members");
    }

    @Test
    void ballotsOrderByViewThenRoundThenNode() {
        assertThat(new Ballot(0, 1, 0).greaterThan(new Ballot(0, 0, 4))).isTrue();
        assertThat(new Ballot(0, 1, 2).greaterThan(new Ballot(0, 1, 1))).isTrue();
        assertThat(new Ballot(3, 0, 3).greaterThan(new Ballot(1, 9, 4))).isTrue();
        assertThat(Ballot.initial(1).isInitial()).isTrue();
        assertThat(Ballot.initial(1)).isEqualTo(new Ballot(1, 0, 1));
        assertThat(Ballot.NONE.compareTo(Ballot.initial(0))).isNegative();
        assertThatThrownBy(() -> new Ballot(0, -2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aViewRecordRoundTripsAndAFormatOneSlotRecordReadsAsTheFirstView() throws Exception {
        SlotRecord.ViewState v = new SlotRecord.ViewState(1, 6, 6, 42);
        assertThat(SlotRecord.decodeAny(SlotRecord.encodeView(v))).isEqualTo(v);
        byte[] bad = SlotRecord.encodeView(new SlotRecord.ViewState(0, 3, 3, 0));
        bad[1] = 7;
        assertThatThrownBy(() -> SlotRecord.decodeAny(bad)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("view record of log 7");
        // A record written before views (format 1: ballots of round and node) is read in the log's first view.
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        out.writeByte(1);
        out.writeByte(1);
        out.writeLong(5);
        out.writeByte(Status.ACCEPTED.ordinal());
        out.writeInt(2);
        out.writeInt(0);
        out.writeInt(2);
        out.writeInt(0);
        out.writeLong(3);
        out.writeLong(3);
        out.writeInt(0);
        Slot old = SlotRecord.decode(bytes.toByteArray());
        assertThat(old.promised).isEqualTo(new Ballot(1, 2, 0));
        assertThat(old.accepted).isEqualTo(new Ballot(1, 2, 0));
        assertThat(old.cmds).isEmpty();
        assertThat(old.depView).isEqualTo(-1);
    }
}
