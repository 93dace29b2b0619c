package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.CodecIds;
import io.tandem.codec.KryoCodec;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.TimerKey;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.transport.Endpoint;
import io.tandem.transport.LocalNetwork;
import io.tandem.transport.MemoryRegions;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A polling engine's loop sends in batches ({@link Transport#startBatch()}): every send of the loop thread is inside
 * an open batch, and each inbox event's sends, and each pass's, are flushed before the engine's next callback, so a
 * send never waits behind another event or a park. Everything sent arrives.
 */
class RuntimeSendBatchTest {
    record Ping(long i) implements ProtocolMessage {
        @Override
        public long requestId() {
            return io.tandem.engine.RequestIds.BACKGROUND;
        }
    }

    @Test
    void everyLoopSendIsInABatchFlushedBeforeTheNextCallback() {
        NodeId n1 = NodeId.of("n1");
        NodeId n2 = NodeId.of("n2");
        KryoCodec.Builder cb = KryoCodec.builder();
        cb.register(Ping.class, CodecIds.TEST_FIRST);
        LocalNetwork net = new LocalNetwork(List.of(n1, n2), cb.build());
        Recording transport = new Recording(net.transport(n1));
        Transport peer = net.transport(n2);
        AtomicInteger replies = new AtomicInteger();
        peer.start(new TransportListener() {
            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {
                replies.incrementAndGet();
            }
        });
        Echo engine = new Echo(transport, n2);
        NodeRuntime runtime = new NodeRuntime(n1, List.of(n1, n2), new OneEngine(engine), transport,
                (events, restorer) -> NodeStorage.inMemory(new MemoryDisk(), "c", n1, events, restorer), new RecordingStateMachine(),
                new SimpleMeterRegistry(), RuntimeConfig.DEFAULTS).start();
        try {
            Await.until(Duration.ofSeconds(10), () -> engine.passSends.get() == Echo.PASS_SENDS);
            int pings = 200;
            for (int i = 0; i < pings; i++) assertThat(peer.send(n1, new Ping(i))).isTrue();
            // Two replies per ping (sent from onMessage), plus the pass's own sends (from doWork).
            Await.until(Duration.ofSeconds(10), () -> replies.get() == 2 * pings + Echo.PASS_SENDS);
            List<String> seq;
            synchronized (transport.log) {
                seq = new ArrayList<>(transport.log);
            }
            assertThat(transport.unbatchedLoopSends.get()).as("loop sends outside a batch").isZero();
            assertThat(seq).contains("flush").contains("event").contains("pass");
            // Between a send and the engine's next callback there is a flush.
            boolean unflushed = false;
            for (int i = 0; i < seq.size(); i++) {
                switch (seq.get(i)) {
                    case "send" -> unflushed = true;
                    case "flush" -> unflushed = false;
                    default -> assertThat(unflushed).as("a send still held at entry %d (%s) of %s", i, seq.get(i), seq.size()).isFalse();
                }
            }
            assertThat(runtime.failure()).isNull();
        } finally {
            runtime.close();
        }
    }

    /** Polling; replies twice to every ping, and sends {@link #PASS_SENDS} pings of its own from its passes, two per pass. */
    static final class Echo implements Engine {
        static final int PASS_SENDS = 40;
        private final Recording transport;
        private final NodeId peer;
        final AtomicInteger passSends = new AtomicInteger();
        private EngineContext ctx;

        Echo(Recording transport, NodeId peer) {
            this.transport = transport;
            this.peer = peer;
        }

        @Override
        public void start(EngineContext context) {
            ctx = context;
            context.requestPolling(true);
        }

        @Override
        public int doWork() {
            if (passSends.get() >= PASS_SENDS) return 0;
            transport.mark("pass");
            for (int k = 0; k < 2; k++) {
                ctx.send(peer, new Ping(-1 - passSends.get()));
                passSends.incrementAndGet();
            }
            return 1;
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            transport.mark("event");
            ctx.send(from, message);
            ctx.send(from, message);
        }

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
            return "test-send-batch";
        }

        @Override
        public Engine createEngine(NodeId self, List<NodeId> members) {
            return engine;
        }

        @Override
        public void registerMessages(MessageRegistry registry) {} // the network's codec has Ping
    }

    /**
     * Records, for the loop thread, its sends, the flushes of batches that held sends, and the engine's callback
     * marks; counts loop sends made with no batch open.
     */
    static final class Recording implements Transport {
        private final Transport delegate;
        final List<String> log = new ArrayList<>();
        final AtomicInteger unbatchedLoopSends = new AtomicInteger();
        private final ThreadLocal<int[]> open = ThreadLocal.withInitial(() -> new int[] {0, 0}); // {open, sends held}

        Recording(Transport delegate) {
            this.delegate = delegate;
        }

        private static boolean onLoop() {
            return Thread.currentThread().getName().startsWith("tandem-loop-");
        }

        void mark(String what) {
            synchronized (log) {
                if (log.size() < 200_000) log.add(what);
            }
        }

        @Override
        public void startBatch() {
            open.get()[0] = 1;
            delegate.startBatch();
        }

        @Override
        public void flushBatch() {
            int[] o = open.get();
            if (o[1] > 0 && onLoop()) mark("flush");
            o[0] = 0;
            o[1] = 0;
            delegate.flushBatch();
        }

        @Override
        public boolean send(NodeId to, ProtocolMessage message) {
            if (onLoop()) {
                int[] o = open.get();
                if (o[0] == 0) unbatchedLoopSends.incrementAndGet();
                o[1]++;
                mark("send");
            }
            return delegate.send(to, message);
        }

        @Override public NodeId self() { return delegate.self(); }
        @Override public Set<NodeId> peers() { return delegate.peers(); }
        @Override public void addMember(NodeId member, Endpoint endpoint) { delegate.addMember(member, endpoint); }
        @Override public void removeMember(NodeId member) { delegate.removeMember(member); }
        @Override public void start(TransportListener listener) { delegate.start(listener); }
        @Override public MemoryRegions regions() { return delegate.regions(); }
        @Override public void close() { delegate.close(); }
    }
}
