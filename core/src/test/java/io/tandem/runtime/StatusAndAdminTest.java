package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.api.NodeStoppedException;
import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.api.UnsupportedRequestException;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.testing.SequencerProtocol;
import io.tandem.transport.LocalNetwork;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime's side of status and admin, with a test engine that implements neither: status is the
 * engine's answer plus the runtime's applied index, and an unsupported admin request fails with a
 * message naming the protocol and the operation. (The shipped engines' answers are tested in protocols.)
 */
class StatusAndAdminTest {
    private static ReplicatedNode startSolo() {
        KryoCodec.Builder codec = KryoCodec.builder();
        new SequencerProtocol().registerMessages(codec);
        LocalNetwork net = new LocalNetwork(List.of(NodeId.of("solo")), codec.build());
        return Tandem.node().id("solo").members("solo").protocol(new SequencerProtocol())
                .transport(setup -> net.transport(setup.self())).inMemoryStorage(new MemoryDisk())
                .stateMachine(new RecordingStateMachine()).start();
    }

    @Test
    void statusCarriesTheRuntimesAppliedIndexAndTheEnginesAnswer() {
        try (ReplicatedNode node = startSolo()) {
            for (int i = 0; i < 3; i++) node.submit(("c" + i).getBytes(StandardCharsets.UTF_8)).join();
            EngineStatus status = node.status().join();
            assertThat(status.appliedIndex()).isEqualTo(3);
            assertThat(status.role()).isEqualTo(EngineStatus.Role.UNKNOWN); // the test engine does not override status()
            assertThat(status.isLeader()).isFalse();
        }
    }

    @Test
    void anAdminRequestTheEngineDoesNotSupportFailsNamingTheProtocolAndOperation() {
        try (ReplicatedNode node = startSolo()) {
            assertThatThrownBy(() -> node.admin(new AdminRequest.AddLearner(NodeId.of("n4"))).join()).cause()
                    .isInstanceOf(UnsupportedRequestException.class).hasMessage("test-sequencer does not support add-learner");
            assertThatThrownBy(() -> node.admin(new AdminRequest.TransferLeadership(NodeId.of("solo"))).join()).cause()
                    .isInstanceOf(UnsupportedRequestException.class).hasMessage("test-sequencer does not support transfer-leadership");
            // the node still serves commands afterwards
            assertThat(node.submit("after".getBytes(StandardCharsets.UTF_8)).join()).isNotNull();
        }
    }

    @Test
    void aClosedNodeAnswersStatusAndAdminWithNodeStopped() {
        ReplicatedNode node = startSolo();
        node.close();
        assertThatThrownBy(() -> node.status().join()).cause().isInstanceOf(NodeStoppedException.class);
        assertThatThrownBy(() -> node.admin(new AdminRequest.Remove(NodeId.of("solo"))).join()).cause().isInstanceOf(NodeStoppedException.class);
    }
}
