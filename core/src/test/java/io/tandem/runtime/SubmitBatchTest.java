package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.NodeId;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.testing.SequencerProtocol;
import io.tandem.transport.LocalNetwork;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link NodeRuntime.SubmitBatch}: commands admitted together reach the engine as one inbox entry, in order. */
class SubmitBatchTest {
    private NodeRuntime runtime;

    @AfterEach
    void close() {
        if (runtime != null) runtime.close();
    }

    private NodeRuntime start(RecordingStateMachine sm) {
        NodeId self = NodeId.of("n1");
        KryoCodec.Builder codec = KryoCodec.builder();
        new SequencerProtocol().registerMessages(codec);
        LocalNetwork net = new LocalNetwork(List.of(self), codec.build());
        MemoryDisk disk = new MemoryDisk();
        runtime = new NodeRuntime(self, List.of(self), new SequencerProtocol(), net.transport(self),
                (events, restorer) -> NodeStorage.inMemory(disk, "c", self, events, restorer), sm, new SimpleMeterRegistry(), RuntimeConfig.DEFAULTS);
        return runtime.start();
    }

    @Test
    void aFlushedBatchIsAppliedInSubmissionOrderAndAnswersEveryCaller() {
        RecordingStateMachine sm = new RecordingStateMachine();
        NodeRuntime node = start(sm);
        NodeRuntime.SubmitBatch batch = node.newSubmitBatch();
        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 1; i <= 20; i++) answers.add(batch.submit(("c" + i).getBytes(StandardCharsets.UTF_8), new Session(9, i)));
        assertThat(batch.size()).isEqualTo(20);
        batch.flush();
        assertThat(batch.size()).isZero();
        for (int i = 0; i < 20; i++) assertThat(new String(answers.get(i).join(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i + 1));
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 20; i++) expected.add("c" + i);
        assertThat(sm.applied).isEqualTo(expected);
    }

    @Test
    void aRetryInALaterBatchIsAnsweredFromTheSessionTable() {
        RecordingStateMachine sm = new RecordingStateMachine();
        NodeRuntime node = start(sm);
        NodeRuntime.SubmitBatch batch = node.newSubmitBatch();
        CompletableFuture<byte[]> first = batch.submit("once".getBytes(StandardCharsets.UTF_8), new Session(5, 1));
        batch.flush();
        byte[] answer = first.join();
        CompletableFuture<byte[]> retry = batch.submit("once".getBytes(StandardCharsets.UTF_8), new Session(5, 1));
        batch.flush();
        assertThat(retry.join()).isEqualTo(answer);
        assertThat(sm.applied).hasSize(1);
    }
}
