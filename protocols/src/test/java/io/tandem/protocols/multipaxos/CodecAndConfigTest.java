package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.*;
import io.tandem.protocols.testing.BrokenProtocols;
import io.tandem.storage.SnapshotMeta;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodecAndConfigTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final Value CMD = new Value.Command(N1, 42, new ClientRequest.Session(9, 3), new byte[] {1, 2, 3});
    private static final Value READ = new Value.LogRead(NodeId.of("n2"), 43);

    @Test
    void valuesRoundTripThroughTheJournalEncodingAndMapToCommittedEntries() {
        for (Value v : List.of(CMD, READ, Value.NOOP)) {
            ByteBuffer out = ByteBuffer.allocate(ValueCodec.encodedSize(v));
            ValueCodec.encode(v, out);
            assertThat(out.remaining()).isZero();
            assertThat(ValueCodec.decode(ByteBuffer.wrap(out.array()))).isEqualTo(v);
        }
        assertThat(ValueCodec.digest(CMD)).isEqualTo(ValueCodec.digest(new Value.Command(N1, 42, new ClientRequest.Session(9, 3), new byte[] {1, 2, 3})));
        assertThat(ValueCodec.digest(CMD)).isNotEqualTo(ValueCodec.digest(new Value.Command(N1, 42, new ClientRequest.Session(9, 3), new byte[] {1, 2, 4})));
        assertThat(CMD.toCommitted(7).command()).containsExactly(1, 2, 3);
        assertThat(CMD.toCommitted(7).origin()).isEqualTo(N1);
        assertThat(CMD.toCommitted(7).session()).isEqualTo(new ClientRequest.Session(9, 3));
        assertThat(READ.toCommitted(8).isNoop()).isTrue(); // a read changes no state
        assertThat(Value.NOOP.toCommitted(9).isNoop()).isTrue();
        assertThat(Value.NOOP.requestId()).isEqualTo(RequestIds.BACKGROUND);
        assertThat(READ.requestId()).isEqualTo(43);
        assertThatThrownBy(() -> ValueCodec.decode(ByteBuffer.wrap(new byte[] {9}))).hasMessageContaining("unknown value tag");
    }

    @Test
    void journalRecordsRoundTrip() {
        byte[] record = Acceptor.encodeRun(new Ballot(3, 1), 17, List.of(CMD, Value.NOOP, READ));
        ByteBuffer in = ByteBuffer.wrap(record);
        assertThat(Acceptor.decodeBallot(in)).isEqualTo(new Ballot(3, 1));
        assertThat(in.getLong()).isEqualTo(17);
        assertThat(in.getInt()).isEqualTo(3);
        assertThat(ValueCodec.decode(in)).isEqualTo(CMD);
    }

    @Test
    void everyMessageCrossesTheKryoCodec() {
        KryoCodec.Builder builder = KryoCodec.builder();
        new MultiPaxosProtocol().registerMessages(builder);
        KryoCodec codec = builder.build();
        SnapshotMeta meta = new SnapshotMeta(10, 2, 100, 0xabc, new byte[0]);
        Ballot b = new Ballot(4, 2);
        List<MultiPaxosMessage> all = List.of(
                new Prepare(b, 5),
                new Promise(b, 3, new ArrayList<>(List.of(new Vote(4, new Ballot(1, 0), CMD), new Vote(6, b, Value.NOOP))), 7, false),
                new Nack(new Ballot(1, 0), b, 42),
                new Accept(b, 9, List.of(CMD, READ, Value.NOOP), 42),
                new Accepted(b, 9, 11, 0, 42),
                new Chosen(9, List.of(CMD), 42),
                new Heartbeat(b, 8, 3),
                new HeartbeatAck(b, Ballot.ZERO, 3),
                new Propose(42, new ClientRequest.Session(9, 3), new byte[] {5}),
                new ProposeRead(43),
                new ProposeRejected(42, null, false, "not the leader"),
                new ProposeRejected(42, N1, true, "busy"),
                new MaxVotedSlotQuery(2, 43),
                new MaxVotedSlot(2, 11, 43),
                new ReadAt(43, 11, 1_000_000),
                new ReplicaProgress(11, 5),
                new Recover(6, 11),
                new CatchUpRequest(6),
                new CatchUpEntries(6, List.of(), 5),
                new SnapshotOffer(meta),
                new SnapshotChunkRequest(meta, 64),
                new SnapshotChunk(meta, 64, new byte[] {1, 2}, true),
                new MultiPaxosMessage.ProxyAccept(b, 9, List.of(CMD, Value.NOOP), 42),
                new MultiPaxosMessage.Decided(b, new long[] {9, 11, 15, 15}, 3, 42));
        for (MultiPaxosMessage m : all) {
            Object back = codec.decode(codec.encode(m));
            assertThat(back).as(m.getClass().getSimpleName()).usingRecursiveComparison().isEqualTo(m);
            assertThat(((MultiPaxosMessage) back).requestId()).isEqualTo(m.requestId());
        }
    }

    @Test
    void theRegistryKnowsTheProtocolAndATestJvmItsBrokenVariants() {
        assertThat(Protocols.names()).contains("multipaxos", "multipaxos-unsafe", "multipaxos-unsafe-ack-before-durable", "multipaxos-slow-wait-for-all-acceptors");
        assertThat(Protocols.byName("multipaxos").name()).isEqualTo("multipaxos");
        assertThat(Protocols.byName("multipaxos-unsafe").name()).isEqualTo("multipaxos-unsafe");
        assertThat(BrokenProtocols.isBroken("multipaxos-unsafe")).as("from the test-jar's provider, not shipped").isTrue();
        assertThat(Protocols.multiPaxos()).isInstanceOf(MultiPaxosProtocol.class);
        assertThat(((MultiPaxosProtocol) Protocols.byName("multipaxos")).config()).isEqualTo(MultiPaxosConfig.DEFAULTS);
    }

    @Test
    void theConfigIsValidated() {
        assertThat(MultiPaxosConfig.builder().build()).isEqualTo(MultiPaxosConfig.DEFAULTS);
        assertThatThrownBy(() -> MultiPaxosConfig.builder().electionTimeout(Duration.ofMillis(300), Duration.ofMillis(300)).build())
                .hasMessageContaining("electionTimeoutMax");
        assertThatThrownBy(() -> MultiPaxosConfig.builder().heartbeatInterval(Duration.ofMillis(600)).build()).hasMessageContaining("at most half");
        assertThatThrownBy(() -> MultiPaxosConfig.builder().windowSlots(0).build()).hasMessageContaining("windowSlots");
        assertThatThrownBy(() -> MultiPaxosConfig.builder().windowSlots(100).maxReplicaLagSlots(50).build()).hasMessageContaining("maxReplicaLagSlots");
        assertThatThrownBy(() -> MultiPaxosConfig.builder().resendInterval(Duration.ZERO).build()).hasMessageContaining("resendInterval");
        assertThatThrownBy(() -> MultiPaxosConfig.builder().acceptorQuorums(null).build()).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theClassicTopologyPutsEveryRoleOnEveryMember() {
        List<NodeId> members = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        Topology t = Topology.of(MultiPaxosProtocol.CLASSIC.resolve(members), QuorumLayout.MAJORITY);
        assertThat(t.leaders()).isEqualTo(members);
        assertThat(t.acceptors()).isEqualTo(members);
        assertThat(t.replicas()).isEqualTo(members);
        assertThat(t.frontends()).isEqualTo(members);
        assertThat(t.leaderOf(new Ballot(7, 2))).isEqualTo(NodeId.of("n3"));
        assertThat(t.leaderOf(Ballot.ZERO)).isNull();
        assertThat(t.snapshotCopiesForGc()).isEqualTo(2);
        assertThat(t.heartbeatAudience()).containsExactlyElementsOf(members);
        assertThatThrownBy(() -> new Topology(members, List.of(NodeId.of("x")), List.of(), members, members, members, List.of(), List.of(), QuorumSystem.majority(members)))
                .hasMessageContaining("not all members");
    }

    @Test
    void engineOptionsSetTheirConfigFieldsAndRefuseBadOnes() throws Exception {
        MultiPaxosProtocol p = new MultiPaxosProtocol().withDeployment(io.tandem.roles.Deployment.read(java.nio.file.Path.of("../simbench/compartments/p2-r2.conf"), MultiPaxosProtocol.ROLES));
        MultiPaxosProtocol unbatched = p.withEngineOptions(java.util.Map.of("max-batch-slots", "1", "max-inflight-messages", "1024", "window-slots", "8192",
                "max-queued-commands", "50000", "batch-max-commands", "16", "max-batch-bytes", "4096", "proxy-stripe-slots", "8"));
        MultiPaxosConfig c = unbatched.config();
        assertThat(c.maxBatchSlots()).isEqualTo(1);
        assertThat(c.maxBatchBytes()).isEqualTo(4096);
        assertThat(c.maxInflightMessages()).isEqualTo(1024);
        assertThat(c.windowSlots()).isEqualTo(8192);
        assertThat(c.maxReplicaLagSlots()).as("raised to the window, which it may not be below").isEqualTo(8192);
        assertThat(c.maxQueuedCommands()).isEqualTo(50_000);
        assertThat(c.batchMaxCommands()).isEqualTo(16);
        assertThat(c.proxyStripeSlots()).isEqualTo(8);
        assertThat(MultiPaxosConfig.DEFAULTS.proxyStripeSlots()).isEqualTo(16);
        assertThat(c.deployment()).as("the deployment is kept").isEqualTo(p.config().deployment());
        assertThat(c.maxInflightBytes()).isEqualTo(MultiPaxosConfig.DEFAULTS.maxInflightBytes());
        assertThat(unbatched.name()).isEqualTo(p.name());
        assertThat(p.withEngineOptions(java.util.Map.of())).isSameAs(p);

        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("batch-size", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown multipaxos engine option 'batch-size'").hasMessageContaining("max-batch-slots");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("max-batch-slots", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max-batch-slots=0").hasMessageContaining("maxBatchSlots must be >= 1");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("proxy-stripe-slots", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("proxyStripeSlots must be >= 1");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("window-slots", "lots")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window-slots=lots: not a whole number");
        assertThatThrownBy(() -> Protocols.byName("copilot").withEngineOptions(java.util.Map.of("max-batch-slots", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("copilot takes no engine options");
    }
}
