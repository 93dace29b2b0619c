package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.KryoCodec;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.TimerKey;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.storage.NodeStorage;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.transport.Endpoint;
import io.tandem.transport.LocalNetwork;
import io.tandem.transport.MemoryRegions;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportListener;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Closing a node stops its loop before its transport: an engine in the middle of a turn may still read
 * the transport's memory regions (a virtual-synchrony engine reads its SST on every poll), and a TCP
 * transport frees that memory when it closes ({@code IllegalStateException: Already closed} from the
 * engine's last poll, seen in the multicast benchmark).
 */
class RuntimeCloseOrderTest {
    @Test
    void theTransportClosesOnlyAfterTheLoopsLastTurnEnded() {
        NodeId self = NodeId.of("n1");
        LocalNetwork net = new LocalNetwork(List.of(self), KryoCodec.builder().build());
        ClosingWatch transport = new ClosingWatch(net.transport(self));
        TurnEngine engine = new TurnEngine(transport);
        NodeRuntime runtime = new NodeRuntime(self, List.of(self), new OneEngine(engine), transport,
                (events, restorer) -> NodeStorage.inMemory(new MemoryDisk(), "c", self, events, restorer), new RecordingStateMachine(),
                new SimpleMeterRegistry(), RuntimeConfig.DEFAULTS).start();
        Await.until(Duration.ofSeconds(10), () -> engine.polls > 0);

        engine.closing = true; // the next turn holds the loop until the transport closes (or 300 ms pass)
        Await.until(Duration.ofSeconds(10), () -> engine.holding);
        runtime.close();

        assertThat(engine.lastTurnEnded).as("the loop's last turn ran to its end").isTrue();
        assertThat(engine.transportClosedDuringTurn).as("the transport closed while the loop was in a turn").isFalse();
        assertThat(transport.closed).isTrue();
        assertThat(runtime.failure()).isNull();
    }

    /** Polls on every turn; once {@link #closing} is set, its turn waits (bounded) to see whether the transport closes under it. */
    static final class TurnEngine implements Engine {
        private final ClosingWatch transport;
        volatile boolean closing;
        volatile long polls;
        volatile boolean transportClosedDuringTurn;
        volatile boolean holding;
        volatile boolean lastTurnEnded;

        TurnEngine(ClosingWatch transport) {
            this.transport = transport;
        }

        @Override
        public void start(EngineContext context) {
            context.requestPolling(true);
        }

        @Override
        public int doWork() {
            polls++;
            if (!closing || lastTurnEnded) return 0;
            holding = true;
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (!transport.closed && System.nanoTime() < until) Thread.onSpinWait();
            transportClosedDuringTurn = transport.closed;
            lastTurnEnded = true;
            return 0;
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {}

        @Override
        public void onTimer(TimerKey key) {}

        @Override
        public void onClientRequest(ClientRequest request) {
            throw new UnsupportedOperationException("no requests in this test");
        }
    }

    record OneEngine(Engine engine) implements Protocol {
        @Override
        public String name() {
            return "test-close-order";
        }

        @Override
        public Engine createEngine(NodeId self, List<NodeId> members) {
            return engine;
        }

        @Override
        public void registerMessages(MessageRegistry registry) {}
    }

    /** A transport that remembers when it was closed. */
    static final class ClosingWatch implements Transport {
        private final Transport delegate;
        volatile boolean closed;

        ClosingWatch(Transport delegate) {
            this.delegate = delegate;
        }

        @Override public NodeId self() { return delegate.self(); }
        @Override public Set<NodeId> peers() { return delegate.peers(); }
        @Override public void addMember(NodeId member, Endpoint endpoint) { delegate.addMember(member, endpoint); }
        @Override public void removeMember(NodeId member) { delegate.removeMember(member); }
        @Override public void start(TransportListener listener) { delegate.start(listener); }
        @Override public boolean send(NodeId to, ProtocolMessage message) { return delegate.send(to, message); }
        @Override public MemoryRegions regions() { return delegate.regions(); }

        @Override
        public void close() {
            closed = true;
            delegate.close();
        }
    }
}
