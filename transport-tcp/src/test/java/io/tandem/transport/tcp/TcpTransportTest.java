package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.engine.NodeId;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.TestSupport.Seq;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@ExtendWith(NettyLeakCheck.class)
class TcpTransportTest {
    static TcpTransportConfig fast() {
        return TcpTransportConfig.defaults().withIoThreads(1).withReconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(200));
    }

    static Stream<IoMode> ioModes() {
        return Stream.of(IoMode.IO_URING, IoMode.EPOLL, IoMode.NIO).filter(NettyIo::isAvailable);
    }

    @ParameterizedTest
    @MethodSource("ioModes")
    void keepsPerPeerOrderOfManyMessagesOnEveryIoMode(IoMode mode) {
        int n = 10_000;
        try (Cluster c = new Cluster(fast().withIoMode(mode), N1, N2, N3)) {
            c.startAll();
            assertThat(c.transport(N1).ioMode()).isEqualTo(mode);
            for (int i = 0; i < n; i++) {
                // Sizes vary, and every 1000th message is larger than a write batch, so frames straddle buffers.
                byte[] payload = new byte[i % 1000 == 999 ? 100_000 : (i % 50) * 20];
                assertThat(c.transport(N1).send(N3, new Seq(i, i, payload))).isTrue();
                assertThat(c.transport(N2).send(N3, new Seq(i, i, payload))).isTrue();
                assertThat(c.transport(N1).send(N2, new Seq(i, i, payload))).isTrue();
                assertThat(c.transport(N2).send(N1, new Seq(i, i, payload))).isTrue();
            }
            List<Long> expected = LongStream.range(0, n).boxed().toList();
            await("all messages delivered", () -> c.recorder(N3).count(N1) == n && c.recorder(N3).count(N2) == n
                    && c.recorder(N2).count(N1) == n && c.recorder(N1).count(N2) == n,
                    () -> "n3<-n1 " + c.recorder(N3).count(N1) + ", n3<-n2 " + c.recorder(N3).count(N2) + ", n2<-n1 " + c.recorder(N2).count(N1) + ", n1<-n2 " + c.recorder(N1).count(N2));
            assertThat(c.recorder(N3).seqsFrom(N1)).isEqualTo(expected);
            assertThat(c.recorder(N3).seqsFrom(N2)).isEqualTo(expected);
            assertThat(c.recorder(N2).seqsFrom(N1)).isEqualTo(expected);
            assertThat(c.recorder(N1).seqsFrom(N2)).isEqualTo(expected);
            assertThat(c.recorder(N3).from(N1).get(999)).satisfies(m -> assertThat(((Seq) m).payload()).hasSize(100_000));
            TcpTransportStats s = c.transport(N1).stats();
            assertThat(s.framesSent()).isEqualTo(2L * n);
            assertThat(s.framesReceived()).isEqualTo(n);
            assertThat(s.droppedSends()).isZero();
            assertThat(s.malformedFrames() + s.oversizedFrames() + s.handshakeRejections()).isZero();
        }
    }

    /**
     * A {@link io.tandem.codec.SharedEncoding} message sent to several peers in a row is encoded once (a leader's
     * AppendEntries to each follower), and each peer gets it whole and in order with the other messages; a new
     * instance, even with equal content, is encoded again.
     */
    @Test
    void aSharedMessageSentToSeveralPeersInARowIsEncodedOnce() {
        int n = 500;
        try (Cluster c = new Cluster(fast(), N1, N2, N3)) {
            c.startAll();
            TcpTransport n1 = c.transport(N1);
            TestSupport.SHARED_ENCODINGS.set(0);
            for (int i = 0; i < n; i++) {
                byte[] payload = new byte[(i % 7) * 100];
                java.util.Arrays.fill(payload, (byte) i);
                TestSupport.Shared m = new TestSupport.Shared(i, i, payload);
                assertThat(n1.send(N2, m)).isTrue();
                assertThat(n1.send(N3, m)).isTrue();
                assertThat(n1.send(N2, new Seq(i, i, payload))).isTrue(); // not shared: between the two and after them
            }
            assertThat(TestSupport.SHARED_ENCODINGS.get()).as("encodings of %d shared messages sent to two peers each", n).isEqualTo(n);
            assertThat(n1.send(N2, new TestSupport.Shared(n, n, new byte[0]))).isTrue();
            assertThat(n1.send(N3, new TestSupport.Shared(n, n, new byte[0]))).isTrue();
            assertThat(TestSupport.SHARED_ENCODINGS.get()).as("equal content, other instances").isEqualTo(n + 2);
            await("all messages delivered", () -> c.recorder(N2).count(N1) == 2 * n + 1 && c.recorder(N3).count(N1) == n + 1,
                    () -> "n2<-n1 " + c.recorder(N2).count(N1) + ", n3<-n1 " + c.recorder(N3).count(N1));
            for (NodeId to : List.of(N2, N3)) {
                List<TestSupport.Shared> got = c.recorder(to).from(N1).stream().filter(m -> m instanceof TestSupport.Shared).map(m -> (TestSupport.Shared) m).toList();
                assertThat(got).hasSize(n + 1);
                for (int i = 0; i < n; i++) {
                    TestSupport.Shared m = got.get(i);
                    assertThat(m.seq()).isEqualTo(i);
                    byte[] expected = new byte[(i % 7) * 100];
                    java.util.Arrays.fill(expected, (byte) i);
                    assertThat(m.payload()).isEqualTo(expected);
                }
            }
            assertThat(c.recorder(N2).seqsFrom(N1)).containsExactlyElementsOf(LongStream.range(0, n).boxed().toList());
        }
    }

    /**
     * wire22: a shared message's body is reused only once every frame that refers to it has been copied out. N3 is
     * not up, so its frames stay queued (each holding its body) while N1 encodes many more shared messages than it
     * keeps bodies for and N2 receives them; once N3 comes up, it must get every message with its own bytes.
     */
    @Test
    void sharedBodiesQueuedForAPeerThatIsDownKeepTheirBytesUntilSent() {
        int n = 3 * SharedBodies.KEPT + 5;
        try (Cluster c = new Cluster(fast(), N1, N2, N3)) {
            c.start(N1);
            c.start(N2);
            TcpTransport n1 = c.transport(N1);
            await("n1 connected to n2", () -> n1.isConnected(N2), () -> "");
            for (int i = 0; i < n; i++) {
                byte[] payload = new byte[1 + (i % 5) * 200];
                java.util.Arrays.fill(payload, (byte) i);
                TestSupport.Shared m = new TestSupport.Shared(i, i, payload);
                assertThat(n1.send(N2, m)).isTrue();
                assertThat(n1.send(N3, m)).isTrue(); // queued: N3 is down
            }
            await("n2 got all", () -> c.recorder(N2).count(N1) == n, () -> "n2<-n1 " + c.recorder(N2).count(N1));
            assertThat(n1.queuedMessages(N3)).isEqualTo(n);
            c.start(N3);
            await("n3 got all", () -> c.recorder(N3) != null && c.recorder(N3).count(N1) == n, () -> "n3<-n1 " + c.recorder(N3).count(N1));
            for (NodeId to : List.of(N2, N3)) {
                List<TestSupport.Shared> got = c.recorder(to).from(N1).stream().map(m -> (TestSupport.Shared) m).toList();
                assertThat(got).hasSize(n);
                for (int i = 0; i < n; i++) {
                    byte[] expected = new byte[1 + (i % 5) * 200];
                    java.util.Arrays.fill(expected, (byte) i);
                    assertThat(got.get(i).seq()).isEqualTo(i);
                    assertThat(got.get(i).payload()).as("message %d at %s", i, to).isEqualTo(expected);
                }
            }
        }
    }

    private static TestSupport.Shared sharedMessage(int i, int size) {
        byte[] payload = new byte[size];
        java.util.Arrays.fill(payload, (byte) i);
        return new TestSupport.Shared(i, i, payload);
    }

    /**
     * wire23: removing a member drops its queue and with it the references its frames held on this thread's shared
     * bodies (else every body a removed peer's queue held would stay out of reuse); only the owner's hold on its last
     * body remains.
     */
    @Test
    void removingAMemberReleasesTheSharedBodiesItsQueueHeld() {
        int n = SharedBodies.KEPT - 2; // every body is kept, so the kept references count every frame
        try (Cluster c = new Cluster(fast(), N1, N2, N3)) {
            c.start(N1);
            c.start(N2);
            TcpTransport n1 = c.transport(N1);
            await("n1 connected to n2", () -> n1.isConnected(N2), () -> "");
            for (int i = 0; i < n; i++) {
                TestSupport.Shared m = sharedMessage(i, 100 + i);
                assertThat(n1.send(N2, m)).isTrue();
                assertThat(n1.send(N3, m)).isTrue(); // queued: N3 is down
            }
            await("n2 got all", () -> c.recorder(N2).count(N1) == n, () -> "n2<-n1 " + c.recorder(N2).count(N1));
            SharedBodies bodies = n1.sharedBodiesOfThisThread();
            await("n2's drain released its references", () -> bodies.keptReferences() == n + 1, () -> "references " + bodies.keptReferences());
            n1.removeMember(N3);
            assertThat(bodies.keptReferences()).as("the owner's hold on its last body").isEqualTo(1);
        }
    }

    /** wire23: closing the transport releases the shared-body references of every queue (here: a peer that is down). */
    @Test
    void closingTheTransportReleasesTheSharedBodiesItsQueuesHeld() {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.start(N1);
            TcpTransport n1 = c.transport(N1);
            for (int i = 0; i < 4; i++) assertThat(n1.send(N2, sharedMessage(i, 50))).isTrue(); // queued: N2 is down
            SharedBodies bodies = n1.sharedBodiesOfThisThread();
            assertThat(bodies.keptReferences()).isEqualTo(4 + 1);
            n1.close();
            assertThat(bodies.keptReferences()).isEqualTo(1);
        }
    }

    /**
     * wire23: the queue has one consumer, the drain flag's holder, so a discard that finds the flag held leaves the
     * dropping to the holder, which does it when it lets go. Here the holder is a drain task waiting behind a blocked
     * event loop (a frame above the direct path's maximum goes to the loop): removing the member cannot drop the
     * frame at once, and the drain drops it, releasing its shared body, once the loop runs.
     */
    @Test
    void aDiscardWhileADrainHoldsTheQueueIsDoneByTheDrain() throws Exception {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.start(N1);
            c.start(N2);
            TcpTransport n1 = c.transport(N1);
            await("n1 connected to n2", () -> n1.isConnected(N2), () -> "");
            io.netty.channel.Channel ch = n1.link(N2).channel();
            java.util.concurrent.CountDownLatch blocked = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            ch.eventLoop().execute(() -> {
                blocked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                assertThat(blocked.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                assertThat(n1.send(N2, sharedMessage(1, DirectSend.MAX_FRAME_BYTES + 100))).isTrue(); // the drain flag goes to the blocked loop
                SharedBodies bodies = n1.sharedBodiesOfThisThread();
                assertThat(bodies.keptReferences()).isEqualTo(2);
                n1.removeMember(N2);
                assertThat(bodies.keptReferences()).as("the frame is still the drain's to drop").isEqualTo(2);
                release.countDown();
                await("the drain dropped the frame", () -> bodies.keptReferences() == 1, () -> "references " + bodies.keptReferences());
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void autoModePicksANativeTransportWhenOneIsAvailable() {
        IoMode resolved = NettyIo.resolve(IoMode.AUTO).mode();
        assertThat(resolved).isNotEqualTo(IoMode.AUTO);
        if (NettyIo.isAvailable(IoMode.IO_URING)) assertThat(resolved).isEqualTo(IoMode.IO_URING);
        else if (NettyIo.isAvailable(IoMode.EPOLL)) assertThat(resolved).isEqualTo(IoMode.EPOLL);
        else assertThat(resolved).isEqualTo(IoMode.NIO);
    }

    @Test
    void redialsAnAcceptorThatRestartsOnTheSamePort() {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, 0);
            c.assertDelivers(N2, N1, 0);
            TcpTransport n1 = c.transport(N1);

            c.stop(N2);
            await("n1 notices that n2 is gone", () -> !n1.isConnected(N2));
            // Sent while n2 is down: they wait in n1's bounded queue and go out in order on the new connection.
            for (int i = 1; i <= 100; i++) assertThat(n1.send(N2, new Seq(i))).isTrue();
            await("n1 keeps redialing", () -> n1.stats().reconnects() >= 2);

            c.start(N2);
            await("the queued messages reach the restarted n2", () -> c.recorder(N2).count(N1) == 100, () -> c.recorder(N2).seqsFrom(N1).toString());
            assertThat(c.recorder(N2).seqsFrom(N1)).isEqualTo(LongStream.rangeClosed(1, 100).boxed().toList());
            c.assertDelivers(N2, N1, 1);
            assertThat(n1.stats().connectionsOpened()).isEqualTo(2);
        }
    }

    @Test
    void acceptsTheRedialOfADialerThatRestarts() {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, 0);
            TcpTransport n2 = c.transport(N2);

            c.stop(N1);
            await("n2 notices that n1 is gone", () -> !n2.isConnected(N1));
            c.start(N1);
            c.assertDelivers(N1, N2, 1);
            c.assertDelivers(N2, N1, 1);
            assertThat(n2.stats().connectionsOpened()).isEqualTo(2);
            assertThat(n2.stats().handshakeRejections()).isZero();
        }
    }

    @Test
    void refusesMessagesItCannotSendWithoutThrowing() {
        TcpTransportConfig config = fast().withMaxFrameBytes(4096).withOutboundWatermarks(1000, 500, 1 << 20, 1 << 19);
        try (Cluster c = new Cluster(config, N1, N2)) {
            c.startAll();
            TcpTransport n1 = c.transport(N1);
            assertThat(n1.send(N2, new TestSupport.Unregistered(1))).isFalse();
            assertThat(n1.send(N2, new Seq(1, 1, new byte[5000]))).isFalse();
            assertThat(n1.send(NodeId.of("n9"), new Seq(1))).isFalse();
            assertThat(n1.send(N1, new Seq(1))).isFalse();
            assertThat(n1.send(null, new Seq(1))).isFalse();
            assertThat(n1.send(N2, null)).isFalse();
            assertThat(n1.stats().failedSends()).isEqualTo(2);
            c.assertDelivers(N1, N2, 7);
            assertThat(c.recorder(N2).seqsFrom(N1)).containsExactly(7L);
        }
    }

    @Test
    void publishesMetersWithNodeAndPeerTags() {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, 0);
            MeterRegistry r = c.registry(N1);
            assertThat(r.get("tandem.transport.frames.sent").tags("node", "n1", "peer", "n2").functionCounter().count()).isGreaterThanOrEqualTo(1);
            assertThat(r.get("tandem.transport.bytes.sent").tags("node", "n1", "peer", "n2").functionCounter().count()).isGreaterThan(8);
            assertThat(r.get("tandem.transport.connections.opened").tags("node", "n1", "peer", "n2").functionCounter().count()).isEqualTo(1);
            assertThat(r.get("tandem.transport.outbox.messages").tags("node", "n1", "peer", "n2").gauge().value()).isZero();
            assertThat(r.get("tandem.transport.peer.connected").tags("node", "n1", "peer", "n2").gauge().value()).isEqualTo(1);
            String mode = c.transport(N1).ioMode().name().toLowerCase(java.util.Locale.ROOT);
            assertThat(r.get("tandem.transport.io.mode").tags("node", "n1", "mode", mode).gauge().value()).isEqualTo(1);
            await("n2 counts the frame it received", () -> c.registry(N2).get("tandem.transport.frames.received").tags("node", "n2", "peer", "n1").functionCounter().count() >= 1);
        }
    }

    @Test
    void closeIsIdempotentReleasesItsThreadsAndMetersAndRefusesFurtherWork() {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.startAll();
            c.assertDelivers(N1, N2, 0);
            TcpTransport n1 = c.transport(N1);
            n1.regions().register("r", 64);
            n1.close();
            n1.close();
            assertThat(n1.send(N2, new Seq(1))).isFalse();
            n1.regions().push("r", 0, 64); // a no-op, not an exception
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.isAlive() && t.getName().startsWith("tandem-tcp-n1-"));
            assertThat(c.registry(N1).find("tandem.transport.frames.sent").meters()).isEmpty();
            assertThatThrownBy(() -> n1.start(new Recorder())).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            await("n2 notices that n1 closed", () -> !c.transport(N2).isConnected(N1));
        }
    }

    @Test
    void startFailsClearlyWhenThePortIsTaken() {
        try (Cluster c = new Cluster(fast(), N1, N2)) {
            c.start(N1);
            MeterRegistry registry = new SimpleMeterRegistry();
            TcpTransport second = new TcpTransport(new TransportSetup(c.clusterName, N1, c.members, c.codec, registry), fast());
            assertThatThrownBy(() -> second.start(new Recorder())).isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot listen on " + c.endpoint(N1));
            assertThat(second.send(N2, new Seq(1))).isFalse(); // closed by the failed start
            second.close();
        }
    }

    @Test
    void factoriesBuildTransportsFromTheNodeSetup() {
        Cluster c = new Cluster(fast(), N1, N2);
        TransportSetup setup = new TransportSetup(c.clusterName, N1, c.members, c.codec, new SimpleMeterRegistry());
        try (Transport t = TcpTransport.defaults().create(setup)) {
            assertThat(t).isInstanceOf(TcpTransport.class);
            assertThat(((TcpTransport) t).config()).isEqualTo(TcpTransportConfig.defaults());
            assertThat(t.peers()).containsExactly(N2);
            assertThat(t.self()).isEqualTo(N1);
        }
        try (Transport t = TcpTransport.factory(fast().withIoMode(IoMode.NIO)).create(setup)) {
            assertThat(((TcpTransport) t).ioMode()).isEqualTo(IoMode.NIO);
        }
    }
}
