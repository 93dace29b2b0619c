package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.TimerKey;
import io.tandem.statemachine.StateMachine;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.transport.LocalNetwork;
import io.tandem.codec.KryoCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runtime answers a request whose command already executed at this node from the session table
 * (a client's retry, or the late copy of a several-leader engine such as Copilot), on the execution
 * thread and without racing the command's execution. The engine here behaves like a Copilot pilot
 * towards such a copy: a command runs at its first position only, so a request of a session it
 * already delivered is neither ordered nor rejected.
 */
class SessionAnswersTest {
    private static final List<String> SOLO = List.of("solo");
    private ReplicatedNode node;

    @AfterEach
    void close() {
        if (node != null) node.close();
    }

    /** Delivers every new command at once; drops a request of a session it delivered before. */
    private static final class FirstCopyOnlyProtocol implements Protocol {
        final AtomicInteger requests = new AtomicInteger();

        @Override
        public String name() {
            return "test-first-copy-only";
        }

        @Override
        public Engine createEngine(NodeId self, List<NodeId> members) {
            return new Engine() {
                private EngineContext ctx;
                private long index;
                private final Set<Session> delivered = new HashSet<>();

                @Override
                public void start(EngineContext ctx) {
                    this.ctx = ctx;
                }

                @Override
                public void onMessage(NodeId from, ProtocolMessage message) {}

                @Override
                public void onTimer(TimerKey key) {}

                @Override
                public void onClientRequest(ClientRequest r) {
                    requests.incrementAndGet();
                    if (!delivered.add(new Session(r.session().clientId(), r.session().sequence(), 0))) return; // its first copy ran
                    ctx.deliver(new Committed(++index, ctx.self(), r.requestId(), r.session(), r.payload()));
                }
            };
        }

        @Override
        public void registerMessages(MessageRegistry registry) {}
    }

    /** Blocks in {@code apply} of the command "slow" until released. */
    private static final class GatedStateMachine implements StateMachine {
        final RecordingStateMachine inner = new RecordingStateMachine();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public byte[] apply(long index, byte[] command) {
            if ("slow".equals(new String(command, StandardCharsets.UTF_8))) {
                entered.countDown();
                try {
                    if (!release.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("never released");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return inner.apply(index, command);
        }

        @Override
        public byte[] query(byte[] query) {
            return inner.query(query);
        }

        @Override
        public void snapshot(OutputStream out) throws IOException {
            inner.snapshot(out);
        }

        @Override
        public void restore(InputStream in) throws IOException {
            inner.restore(in);
        }
    }

    private ReplicatedNode start(FirstCopyOnlyProtocol protocol, StateMachine sm) {
        LocalNetwork net = new LocalNetwork(List.of(NodeId.of("solo")), KryoCodec.builder().build());
        node = Tandem.node().id("solo").members(SOLO.toArray(String[]::new))
                .protocol(protocol)
                .transport(setup -> net.transport(setup.self()))
                .inMemoryStorage()
                .stateMachine(sm)
                .requestTimeout(Duration.ofSeconds(20)) // a timeout fails the test: every answer here is a result
                .start();
        return node;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aRequestWhoseCommandAlreadyRanHereIsAnsweredFromTheSessionTable() {
        FirstCopyOnlyProtocol protocol = new FirstCopyOnlyProtocol();
        RecordingStateMachine sm = new RecordingStateMachine();
        start(protocol, sm);
        assertThat(text(node.submit(utf8("a"), new Session(9, 1)).join())).isEqualTo("1");
        assertThat(text(node.submit(utf8("b"), new Session(9, 2)).join())).isEqualTo("2");
        // The engine drops both copies; the runtime answers each with its command's one result.
        assertThat(text(node.submit(utf8("b"), new Session(9, 2)).join())).isEqualTo("2");
        assertThat(text(node.submit(utf8("a"), new Session(9, 2, 1)).join())).isEqualTo("2"); // a lookup's watermark changes nothing
        assertThat(sm.applied).containsExactly("a", "b");
        assertThat(protocol.requests.get()).isEqualTo(4);
        // A new command of the session is ordered and applied as usual.
        assertThat(text(node.submit(utf8("c"), new Session(9, 3)).join())).isEqualTo("3");
        assertThat(sm.applied).containsExactly("a", "b", "c");
    }

    /**
     * The copy arrives while the command's first copy is delivered but still executing: the lookup
     * runs after that batch, so it finds the result; it neither misses it nor answers early.
     */
    @Test
    void aCopyArrivingWhileItsCommandExecutesGetsThatResult() throws InterruptedException {
        FirstCopyOnlyProtocol protocol = new FirstCopyOnlyProtocol();
        GatedStateMachine sm = new GatedStateMachine();
        start(protocol, sm);
        node.submit(utf8("x"), new Session(5, 1)).join();
        CompletableFuture<byte[]> first = node.submit(utf8("slow"), new Session(5, 2));
        assertThat(sm.entered.await(30, TimeUnit.SECONDS)).isTrue(); // delivered, and the execution thread is inside apply
        CompletableFuture<byte[]> copy = node.submit(utf8("slow"), new Session(5, 2));
        Await.until(Duration.ofSeconds(30), () -> protocol.requests.get() == 3, () -> "requests seen by the engine: " + protocol.requests.get());
        assertThat(copy).isNotDone();
        sm.release.countDown();
        assertThat(text(first.join())).isEqualTo("2");
        assertThat(text(copy.join())).isEqualTo("2");
        assertThat(sm.inner.applied).containsExactly("x", "slow");
    }
}
