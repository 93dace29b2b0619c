package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.NodeId;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import java.util.List;
import org.junit.jupiter.api.Test;

class PayloadAndCodecTest {
    private static final NodeId N1 = NodeId.of("n1"), N2 = NodeId.of("n2");

    @Test
    void entryPayloadsRoundTripAndNameTheirOrigin() {
        var command = new EntryPayload.Command(N1, 42, new ClientRequest.Session(7, 3), new byte[] {9, 8});
        byte[] bytes = EntryPayload.encode(command);
        var decoded = (EntryPayload.Command) EntryPayload.decode(bytes);
        assertThat(decoded.origin()).isEqualTo(N1);
        assertThat(decoded.requestId()).isEqualTo(42);
        assertThat(decoded.session()).isEqualTo(new ClientRequest.Session(7, 3));
        assertThat(decoded.command()).containsExactly(9, 8);
        assertThat(EntryPayload.requestIdOf(bytes)).isEqualTo(42);

        Committed c = EntryPayload.toCommitted(5, decoded);
        assertThat(c.origin()).isEqualTo(N1);
        assertThat(c.requestId()).isEqualTo(42);
        assertThat(c.command()).containsExactly(9, 8);

        assertThat(EntryPayload.toCommitted(6, EntryPayload.decode(EntryPayload.encode(new EntryPayload.Noop(null, 0)))).isNoop()).isTrue();
        Committed transfer = EntryPayload.toCommitted(7, EntryPayload.decode(EntryPayload.encode(new EntryPayload.Noop(N2, 11))));
        assertThat(transfer.isNoop()).isTrue();
        assertThat(transfer.origin()).isEqualTo(N2);
        assertThat(transfer.requestId()).isEqualTo(11);

        var config = new Configuration(List.of(N2, N1), List.of(NodeId.of("n3")));
        byte[] cb = EntryPayload.encode(new EntryPayload.ConfigChange(N1, 5, config));
        assertThat(EntryPayload.isConfigChange(cb)).isTrue();
        assertThat(EntryPayload.isConfigChange(bytes)).isFalse();
        assertThat(((EntryPayload.ConfigChange) EntryPayload.decode(cb)).configuration()).isEqualTo(config);
        assertThat(config.voters()).containsExactly(N1, N2);
    }

    /**
     * Issue 25: a committed command is delivered as a range of the entry's own bytes, with what the full
     * decode gives; anything else (no-ops, configuration changes, the old format, bytes that are no
     * well-formed command) is decoded the general way, which names a bad entry.
     */
    @Test
    void aCommittedCommandIsARangeOfTheEntryWithWhatTheFullDecodeGives() {
        for (NodeId origin : new NodeId[] {N1, null}) {
            byte[] command = {9, 8, 7};
            var session = new ClientRequest.Session(7, 3, 2);
            byte[] bytes = EntryPayload.encode(new EntryPayload.Command(origin, 42, session, command));
            Committed c = EntryPayload.committed(5, bytes);
            assertThat(c.commandBuffer()).isSameAs(bytes); // no copy of the command
            assertThat(c.commandOffset() + c.commandLength()).isEqualTo(bytes.length);
            assertThat(c.command()).containsExactly(9, 8, 7);
            assertThat(c.origin()).isEqualTo(origin);
            assertThat(c.requestId()).isEqualTo(42);
            assertThat(c.session()).isEqualTo(session);
            assertThat(c.index()).isEqualTo(5);
            Committed decoded = EntryPayload.toCommitted(5, EntryPayload.decode(bytes));
            assertThat(c.command()).isEqualTo(decoded.command());
            assertThat(c.session()).isEqualTo(decoded.session());
        }
        assertThat(EntryPayload.committed(6, EntryPayload.encode(new EntryPayload.Noop(null, 0))).isNoop()).isTrue();
        Committed transfer = EntryPayload.committed(7, EntryPayload.encode(new EntryPayload.Noop(N2, 11)));
        assertThat(transfer.isNoop()).isTrue();
        assertThat(transfer.origin()).isEqualTo(N2);
        var config = new Configuration(List.of(N1, N2), List.of());
        assertThat(EntryPayload.committed(8, EntryPayload.encode(new EntryPayload.ConfigChange(N1, 5, config))).isNoop()).isTrue();
        byte[] empty = EntryPayload.encode(new EntryPayload.Command(N1, 1, new ClientRequest.Session(1, 1), new byte[0]));
        assertThat(EntryPayload.committed(9, empty).command()).isEmpty();
        // Truncated inside the session: not a range; the general decode refuses it by name.
        byte[] truncated = java.util.Arrays.copyOf(empty, empty.length - 3);
        assertThat(EntryPayload.committedCommand(10, truncated)).isNull();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EntryPayload.committed(10, truncated))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("corrupt Raft entry payload");
    }

    @Test
    void adminCommandsRoundTripAndOrdinaryCommandsAreNotMistakenForThem() {
        for (AdminRequest cmd : List.<AdminRequest>of(new AdminRequest.AddLearner(N2), new AdminRequest.Promote(N2),
                new AdminRequest.Remove(N1), new AdminRequest.TransferLeadership(N2))) {
            assertThat(RaftAdmin.decode(RaftAdmin.encode(cmd))).contains(cmd);
        }
        assertThat(RaftAdmin.decode("set x 1".getBytes())).isEmpty();
        assertThat(RaftAdmin.decode(new byte[0])).isEmpty();
        byte[] unknownKind = RaftAdmin.addLearner(N2);
        unknownKind[RaftAdmin.MAGIC.length] = 99;
        assertThat(RaftAdmin.decode(unknownKind)).isEmpty();
    }

    @Test
    void baseRecordsRoundTrip() {
        var records = List.of(new BaseRecord(10, 2, Configuration.ofVoters(List.of(N1, N2))),
                new BaseRecord(20, 3, new Configuration(List.of(N1), List.of(N2))));
        assertThat(BaseRecord.decodeAll(BaseRecord.encodeAll(records))).isEqualTo(records);
        assertThat(BaseRecord.decodeAll(null)).isEmpty();
    }

    @Test
    void everyMessageCrossesTheWireThroughTheRegisteredCodec() {
        var builder = KryoCodec.builder();
        new RaftProtocol().registerMessages(builder);
        KryoCodec codec = builder.build();
        var entries = List.of(new LogEntry(3, 2, new byte[] {1, 2}), new LogEntry(4, 2, new byte[0]));
        var snapshot = new SnapshotMeta(9, 2, 100, 12345, new byte[0]);
        List<RaftMessage> messages = List.of(
                new RaftMessage.PreVoteRequest(3, 10, 2),
                new RaftMessage.PreVoteResponse(3, true),
                new RaftMessage.VoteRequest(3, 10, 2, true),
                new RaftMessage.VoteResponse(3, false),
                new RaftMessage.AppendEntries(3, 2, 1, entries, 2, 77),
                new RaftMessage.AppendEntries(3, 2, 1, List.of(), 2, 0),
                new RaftMessage.AppendEntriesResponse(3, false, 0, 4, 2, 3, 77),
                new RaftMessage.Heartbeat(3, 9, 100, 0),
                new RaftMessage.HeartbeatResponse(3, 100, 0),
                new RaftMessage.InstallSnapshot(3, snapshot, Configuration.ofVoters(List.of(N1, N2)), 64, new byte[] {5}, true),
                new RaftMessage.InstallSnapshotResponse(3, 9, 64, false),
                new RaftMessage.TimeoutNow(3, N1, 5));
        for (RaftMessage m : messages) {
            Object back = codec.decode(codec.encode(m));
            assertThat(back).isInstanceOf(m.getClass());
            assertThat(((RaftMessage) back).term()).isEqualTo(m.term());
            assertThat(((RaftMessage) back).requestId()).isEqualTo(m.requestId());
        }
        var ae = (RaftMessage.AppendEntries) codec.decode(codec.encode(messages.get(4)));
        assertThat(ae.entries()).hasSize(2);
        assertThat(ae.entries().get(0).payload()).containsExactly(1, 2);
        var is = (RaftMessage.InstallSnapshot) codec.decode(codec.encode(messages.get(9)));
        assertThat(RaftEngine.sameSnapshot(is.snapshot(), snapshot)).isTrue();
        assertThat(is.configuration().voters()).containsExactly(N1, N2);
    }

    @Test
    void configValidationNamesTheSetting() {
        var b = RaftConfig.builder();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.electionTimeout(java.time.Duration.ofMillis(300), java.time.Duration.ofMillis(200)).build())
                .hasMessageContaining("electionTimeoutMax");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RaftConfig.builder().heartbeatInterval(java.time.Duration.ofMillis(600)).build())
                .hasMessageContaining("heartbeatInterval");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RaftConfig.builder().maxClockDrift(java.time.Duration.ofSeconds(5)).build())
                .hasMessageContaining("maxClockDrift");
        assertThat(RaftConfig.DEFAULTS.leaseDuration()).isEqualTo(java.time.Duration.ofMillis(900));
    }
}
