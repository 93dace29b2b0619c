package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.api.Address;
import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.NodeStoppedException;
import io.tandem.api.NotLeaderException;
import io.tandem.api.OverloadedException;
import io.tandem.api.Receiver;
import io.tandem.api.ReplicatedNode;
import io.tandem.api.RequestTimeoutException;
import io.tandem.api.Tandem;
import io.tandem.api.TandemException;
import io.tandem.api.View;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.TimerKey;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.testing.SequencerProtocol;
import io.tandem.transport.FaultInjectingTransport;
import io.tandem.transport.FaultPlan;
import io.tandem.transport.LocalNetwork;
import io.tandem.codec.KryoCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NodeRuntimeTest {
    private static final List<String> MEMBERS = List.of("n1", "n2", "n3");
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables.reversed()) c.close();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private LocalNetwork network(List<String> names) {
        KryoCodec.Builder codec = KryoCodec.builder();
        new SequencerProtocol().registerMessages(codec);
        return new LocalNetwork(names.stream().map(NodeId::of).toList(), codec.build());
    }

    private ReplicatedNode start(LocalNetwork net, String id, List<String> members, RecordingStateMachine sm, MemoryDisk disk) {
        return start(net, id, members, sm, disk, true);
    }

    private ReplicatedNode start(LocalNetwork net, String id, List<String> members, RecordingStateMachine sm, MemoryDisk disk, boolean forward) {
        ReplicatedNode node = Tandem.node().id(id).members(members.toArray(String[]::new))
                .forwardRequests(forward)
                .protocol(new SequencerProtocol())
                .transport(setup -> net.transport(setup.self()))
                .inMemoryStorage(disk)
                .stateMachine(sm)
                .start();
        closeables.add(node);
        return node;
    }

    @Test
    void commandsAreAppliedInTheSameOrderOnEveryMemberAndAnswerTheirCaller() {
        LocalNetwork net = network(MEMBERS);
        List<RecordingStateMachine> machines = new ArrayList<>();
        List<ReplicatedNode> nodes = new ArrayList<>();
        for (String id : MEMBERS) {
            RecordingStateMachine sm = new RecordingStateMachine();
            machines.add(sm);
            nodes.add(start(net, id, MEMBERS, sm, new MemoryDisk()));
        }
        List<CompletableFuture<byte[]>> results = new ArrayList<>();
        for (int i = 1; i <= 50; i++) results.add(nodes.getFirst().submit(utf8("c" + i)));
        for (int i = 0; i < 50; i++) assertThat(text(results.get(i).join())).isEqualTo(Integer.toString(i + 1));
        Await.until(Duration.ofSeconds(10), () -> machines.stream().allMatch(m -> m.applied.size() == 50), () -> "applied " + machines.stream().map(m -> m.applied.size()).toList());
        assertThat(machines.get(1).applied).isEqualTo(machines.get(0).applied);
        assertThat(machines.get(2).applied).isEqualTo(machines.get(0).applied);
        assertThat(nodes.get(1).appliedIndex()).isEqualTo(50);
    }

    @Test
    void withoutForwardingAFollowerRejectsWithTheLeaderHintAndReadsSeePriorWrites() {
        LocalNetwork net = network(MEMBERS);
        List<ReplicatedNode> nodes = new ArrayList<>();
        for (String id : MEMBERS) nodes.add(start(net, id, MEMBERS, new RecordingStateMachine(), new MemoryDisk(), false));
        assertThatThrownBy(() -> nodes.get(2).submit(utf8("x")).join())
                .cause().isInstanceOfSatisfying(NotLeaderException.class, e -> assertThat(e.leaderHint()).contains(NodeId.of("n1")));
        nodes.get(0).submit(utf8("a")).join();
        nodes.get(0).submit(utf8("b")).join();
        assertThat(text(nodes.get(0).query(new byte[0], ReadPolicy.LINEARIZABLE).join())).isEqualTo("a,b");
    }

    @Test
    void aFollowerForwardsCommandsAndReadsToTheLeaderAndItsCallerGetsTheLeadersAnswer() {
        LocalNetwork net = network(MEMBERS);
        List<RecordingStateMachine> machines = List.of(new RecordingStateMachine(), new RecordingStateMachine(), new RecordingStateMachine());
        List<ReplicatedNode> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) nodes.add(start(net, MEMBERS.get(i), MEMBERS, machines.get(i), new MemoryDisk()));
        // n3 cannot order anything (the sequencer is n1): both commands travel to n1 and complete on n3.
        assertThat(text(nodes.get(2).submit(utf8("from-n3")).join())).isEqualTo("1");
        assertThat(text(nodes.get(1).submit(utf8("from-n2")).join())).isEqualTo("2");
        // A linearizable read submitted on n3 is served by n1 (whose state has both) and its result travels back.
        assertThat(text(nodes.get(2).query(new byte[0], ReadPolicy.LINEARIZABLE).join())).isEqualTo("from-n3,from-n2");
        Await.until(Duration.ofSeconds(10), () -> machines.stream().allMatch(m -> m.applied.size() == 2), () -> "applied " + machines.stream().map(m -> m.applied).toList());
        for (RecordingStateMachine m : machines) assertThat(m.applied).containsExactly("from-n3", "from-n2");
    }

    @Test
    void aRetriedCommandOfASessionIsAppliedOnce() {
        LocalNetwork net = network(MEMBERS);
        RecordingStateMachine sm = new RecordingStateMachine();
        ReplicatedNode leader = start(net, "n1", MEMBERS, sm, new MemoryDisk());
        start(net, "n2", MEMBERS, new RecordingStateMachine(), new MemoryDisk());
        start(net, "n3", MEMBERS, new RecordingStateMachine(), new MemoryDisk());
        Session s = new Session(77, 1);
        byte[] first = leader.submit(utf8("once"), s).join();
        byte[] retry = leader.submit(utf8("once"), s).join();
        assertThat(retry).isEqualTo(first);
        assertThat(sm.applied).containsExactly("once");
        leader.submit(utf8("twice"), new Session(77, 2)).join();
        assertThatThrownBy(() -> leader.submit(utf8("old"), new Session(77, 1)).join()).cause().isInstanceOfSatisfying(TandemException.class,
                e -> assertThat(e.getMessage()).contains("below its session's low watermark"));
        assertThat(sm.applied).containsExactly("once", "twice");
    }

    @Test
    void pendingRequestsAreBoundedAndTimeOut() {
        LocalNetwork net = network(MEMBERS);
        List<FaultInjectingTransport> faulty = new CopyOnWriteArrayList<>();
        ReplicatedNode leader = Tandem.node().id("n1").members(MEMBERS.toArray(String[]::new))
                .protocol(new SequencerProtocol())
                .transport(setup -> {
                    FaultInjectingTransport t = new FaultInjectingTransport(net.transport(setup.self()), 1);
                    faulty.add(t);
                    return t;
                })
                .inMemoryStorage()
                .stateMachine(new RecordingStateMachine())
                .maxPendingRequests(1)
                .requestTimeout(Duration.ofMillis(300))
                .start();
        closeables.add(leader);
        start(net, "n2", MEMBERS, new RecordingStateMachine(), new MemoryDisk());
        start(net, "n3", MEMBERS, new RecordingStateMachine(), new MemoryDisk());
        faulty.getFirst().setPlan(FaultPlan.NONE.isolate(NodeId.of("n1"), List.of(NodeId.of("n2"), NodeId.of("n3"))));
        CompletableFuture<byte[]> stuck = leader.submit(utf8("held"));
        assertThatThrownBy(() -> leader.submit(utf8("more")).join()).cause().isInstanceOf(OverloadedException.class);
        assertThatThrownBy(stuck::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(RequestTimeoutException.class);
        // The slot is free again once the stuck request failed: the next request is admitted (the
        // test engine has no retransmission, so it times out too, rather than being refused).
        assertThatThrownBy(() -> leader.submit(utf8("after")).join()).cause().isInstanceOf(RequestTimeoutException.class);
    }

    @Test
    void aRestartedNodeResumesFromItsSnapshotAndLog() {
        List<String> solo = List.of("solo");
        MemoryDisk disk = new MemoryDisk();
        RecordingStateMachine before = new RecordingStateMachine();
        ReplicatedNode node = start(network(solo), "solo", solo, before, disk);
        node.submit(utf8("a")).join();
        node.submit(utf8("b")).join();
        node.submit(SequencerProtocol.SNAPSHOT_COMMAND).join();
        node.submit(utf8("c")).join();
        Await.until(Duration.ofSeconds(10), () -> !disk.toString().isEmpty() && before.applied.size() == 4);
        node.close();

        RecordingStateMachine after = new RecordingStateMachine();
        ReplicatedNode restarted = start(network(solo), "solo", solo, after, disk);
        Await.until(Duration.ofSeconds(10), () -> after.applied.size() == 4, () -> "restored " + after.applied);
        assertThat(after.applied).containsExactly("a", "b", "snapshot!", "c");
        assertThat(text(restarted.submit(utf8("d")).join())).isEqualTo("5");
    }

    @Test
    void aFullDiskStopsTheNodeWithoutAcknowledgingTheWriteItCouldNotKeep() {
        List<String> solo = List.of("solo");
        MemoryDisk disk = new MemoryDisk();
        RecordingStateMachine sm = new RecordingStateMachine();
        ReplicatedNode node = start(network(solo), "solo", solo, sm, disk);
        node.submit(utf8("kept")).join();
        disk.setFull(true);
        assertThatThrownBy(() -> node.submit(utf8("lost")).join()).cause().isInstanceOf(NodeStoppedException.class).hasMessageContaining("storage failed");
        assertThatThrownBy(() -> node.submit(utf8("after")).join()).cause().isInstanceOf(NodeStoppedException.class);
        assertThat(sm.applied).containsExactly("kept");
    }

    /** An engine that throws on the first client request. */
    private static final class FailingProtocol implements Protocol {
        @Override
        public String name() {
            return "failing";
        }

        @Override
        public Engine createEngine(NodeId self, List<NodeId> members) {
            return new Engine() {
                @Override
                public void start(EngineContext ctx) {}

                @Override
                public void onMessage(NodeId from, ProtocolMessage message) {}

                @Override
                public void onTimer(TimerKey key) {}

                @Override
                public void onClientRequest(ClientRequest request) {
                    throw new IllegalStateException("engine bug");
                }
            };
        }

        @Override
        public void registerMessages(MessageRegistry registry) {}
    }

    @Test
    void aChannelWhoseEngineFailsAtStartFailsToConnectAtOnceRatherThanWaitForAView() {
        List<String> solo = List.of("solo");
        Protocol failsAtStart = new Protocol() {
            @Override
            public String name() {
                return "fails-at-start";
            }

            @Override
            public Engine createEngine(NodeId self, List<NodeId> members) {
                return new Engine() {
                    @Override
                    public void start(EngineContext ctx) {
                        throw new IllegalStateException("engine bug at start");
                    }

                    @Override
                    public void onMessage(NodeId from, ProtocolMessage message) {}

                    @Override
                    public void onTimer(TimerKey key) {}

                    @Override
                    public void onClientRequest(ClientRequest request) {}
                };
            }

            @Override
            public void registerMessages(MessageRegistry registry) {}
        };
        assertThatThrownBy(() -> Tandem.channel().id("solo").members("solo").protocol(failsAtStart)
                .transport(setup -> network(solo).transport(setup.self())).inMemoryStorage().requestTimeout(Duration.ofMinutes(5))
                .connect(new Receiver() {}))
                .isInstanceOf(NodeStoppedException.class).hasMessageContaining("engine bug at start");
    }

    @Test
    void anEngineFailureStopsTheNodeAndFailsEveryRequest() {
        List<String> solo = List.of("solo");
        ReplicatedNode node = Tandem.node().id("solo").members("solo").protocol(new FailingProtocol())
                .transport(setup -> network(solo).transport(setup.self())).inMemoryStorage()
                .stateMachine(new RecordingStateMachine()).start();
        closeables.add(node);
        assertThatThrownBy(() -> node.submit(utf8("x")).join()).cause().isInstanceOf(TandemException.class).hasMessageContaining("engine bug");
        Await.until(Duration.ofSeconds(5), () -> node.submit(utf8("y")).isCompletedExceptionally());
        assertThatThrownBy(() -> node.submit(utf8("z")).join()).cause().isInstanceOf(NodeStoppedException.class).hasMessageContaining("engine bug");
    }

    @Test
    void aChannelDeliversEveryMessageInTheSameOrderToEveryReceiver() {
        LocalNetwork net = network(MEMBERS);
        List<List<String>> received = new ArrayList<>();
        List<View> views = new CopyOnWriteArrayList<>();
        List<Channel> channels = new ArrayList<>();
        for (String id : MEMBERS) {
            List<String> mine = new CopyOnWriteArrayList<>();
            received.add(mine);
            Channel ch = Tandem.channel().id(id).members(MEMBERS.toArray(String[]::new)).protocol(new SequencerProtocol())
                    .transport(setup -> net.transport(setup.self())).inMemoryStorage()
                    .connect(new Receiver() {
                        @Override
                        public void receive(Message message) {
                            mine.add(message.src() + ":" + message.text() + "@" + message.position());
                        }

                        @Override
                        public void viewAccepted(View view) {
                            views.add(view);
                        }
                    });
            closeables.add(ch);
            channels.add(ch);
        }
        assertThat(views).hasSize(3).allSatisfy(v -> assertThat(v.coordinator()).isEqualTo(Address.of("n1")));
        for (int i = 0; i < 20; i++) assertThat(channels.getFirst().send("m" + i).join()).isEqualTo(i + 1);
        Await.until(Duration.ofSeconds(10), () -> received.stream().allMatch(r -> r.size() == 20));
        assertThat(received.get(1)).isEqualTo(received.get(0));
        assertThat(received.get(2)).isEqualTo(received.get(0));
        assertThat(received.get(0).getFirst()).isEqualTo("n1:m0@1");
    }

    /**
     * The channel's rule for leaving its name out of each message ({@link Protocol#deliversSenderAsOrigin}): only a
     * protocol that orders every command at the member it was submitted on may claim it. The sequencer orders
     * n2's and n3's sends at n1 (the runtime forwards them there), so the origin of each is n1; it does not claim
     * the rule, the channel keeps the name in every command, and each receiver names every sender right. Its broken
     * twin claims the rule: its receivers take the origin (n1) for the sender of the forwarded messages.
     */
    @Test
    void aChannelNamesEachMessagesSenderAlsoWhenAnotherMemberOrdersIt() {
        assertThat(misattributed(new SequencerProtocol())).isEmpty();
        assertThat(misattributed(claimsSendersAsOrigin(new SequencerProtocol()))).isNotEmpty().allMatch(m -> m.startsWith("n1 delivered by"));
    }

    /** Every member sends messages naming it; the deliveries, at any member, whose sender is not the one named. */
    private List<String> misattributed(Protocol protocol) {
        LocalNetwork net = network(MEMBERS);
        List<String> wrong = new CopyOnWriteArrayList<>();
        List<Integer> counts = new CopyOnWriteArrayList<>();
        List<Channel> channels = new ArrayList<>();
        for (String id : MEMBERS) {
            java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
            Channel ch = Tandem.channel().id(id).members(MEMBERS.toArray(String[]::new)).protocol(protocol)
                    .transport(setup -> net.transport(setup.self())).inMemoryStorage()
                    .connect(new Receiver() {
                        @Override
                        public void receive(Message message) {
                            String named = message.text().substring(0, message.text().indexOf(':'));
                            if (!message.src().equals(Address.of(named))) wrong.add(message.src().node().value() + " delivered by " + id + " for " + message.text());
                            counts.add(count.incrementAndGet());
                        }
                    });
            closeables.add(ch);
            channels.add(ch);
        }
        List<CompletableFuture<Long>> sends = new ArrayList<>();
        for (int i = 0; i < 12; i++) sends.add(channels.get(i % 3).send(MEMBERS.get(i % 3) + ":" + i));
        for (CompletableFuture<Long> f : sends) f.join();
        Await.until(Duration.ofSeconds(10), () -> counts.stream().filter(c -> c == 12).count() == 3);
        return wrong;
    }

    /** A broken twin: {@code protocol} claiming it delivers each command's sender as its origin. */
    private static Protocol claimsSendersAsOrigin(Protocol protocol) {
        return new Protocol() {
            @Override
            public String name() {
                return protocol.name() + "-claiming-senders";
            }

            @Override
            public Engine createEngine(NodeId self, List<NodeId> members) {
                return protocol.createEngine(self, members);
            }

            @Override
            public io.tandem.routing.RoutingPolicy routing() {
                return protocol.routing();
            }

            @Override
            public boolean deliversSenderAsOrigin() {
                return true;
            }

            @Override
            public void registerMessages(MessageRegistry registry) {
                protocol.registerMessages(registry);
            }
        };
    }
}
