package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.Receiver;
import io.tandem.api.Tandem;
import io.tandem.api.UnavailableException;
import io.tandem.api.View;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.testing.Await;
import io.tandem.transport.LocalNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A channel over Raft whose membership changes through the admin API: every member's receiver
 * sees the same views, in the same order and at the same places among the messages (virtual
 * synchrony's view agreement, derecho.md §9.2 P1/P3). The joiner n4 starts knowing the group, but
 * the group's transports learn of n4 only when the view that adds it is installed (run-time
 * membership); the removed n3 sees a prefix of the others' sequence. Real time, deadlines only.
 */
class RaftChannelViewsTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final RaftConfig CONFIG = RaftConfig.builder()
            .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(30))
            .maxClockDrift(Duration.ofMillis(20)).initialVoters(Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3")))
            .build();

    private final Map<String, Channel> channels = new TreeMap<>();
    private final Map<String, List<String>> seen = new TreeMap<>();

    @AfterEach
    void closeAll() {
        channels.values().forEach(Channel::close);
    }

    @Test
    void everyMemberSeesTheSameViewsInTheSamePlaceAmongTheMessages() {
        KryoCodec.Builder codec = KryoCodec.builder();
        new RaftProtocol(CONFIG).registerMessages(codec);
        LocalNetwork net = new LocalNetwork(List.of(NodeId.of("n1"), NodeId.of("n2"), N3, N4), codec.build());
        List<String> three = List.of("n1", "n2", "n3");
        for (String id : three) connect(net, id, three);
        connect(net, "n4", List.of("n1", "n2", "n3", "n4")); // the joiner knows where the group is

        send("before");
        String leader = leader();
        retryWhileUnavailable(() -> admin(leader, new AdminRequest.AddLearner(N4)));
        send("with learner n4");
        retryWhileUnavailable(() -> admin(leader(), new AdminRequest.Promote(N4)));
        send("with voter n4");
        String remover = leader();
        retryWhileUnavailable(() -> admin(remover, new AdminRequest.Remove(remover.equals("n3") ? NodeId.of("n2") : N3)));
        NodeId removed = remover.equals("n3") ? NodeId.of("n2") : N3;
        send("after the removal");

        List<String> survivors = new ArrayList<>(List.of("n1", "n2", "n3", "n4"));
        survivors.remove(removed.value());
        Await.until(DEADLINE, () -> survivors.stream().allMatch(id -> seen.get(id).contains("msg after the removal")
                && seen.get(id).equals(seen.get(survivors.getFirst()))), () -> "receivers saw " + seen);
        List<String> sequence = seen.get(survivors.getFirst());
        List<String> views = sequence.stream().filter(e -> e.startsWith("view")).toList();
        assertThat(views).as("initial, n4 learner, n4 voter, without " + removed).hasSize(4);
        assertThat(views.getFirst()).isEqualTo("view 1 [n1, n2, n3]");
        assertThat(views.get(1)).endsWith("[n1, n2, n3, n4]");
        assertThat(views.getLast()).doesNotContain(removed.value()).contains("n4");
        assertThat(ids(views)).isSorted().doesNotHaveDuplicates();
        assertThat(sequence.indexOf("msg before")).isLessThan(sequence.indexOf(views.get(1)));
        assertThat(sequence.indexOf(views.get(1))).isLessThan(sequence.indexOf("msg with learner n4"));
        for (String id : survivors) assertThat(seen.get(id)).as(id).isEqualTo(sequence);
        List<String> removedSaw = seen.get(removed.value());
        assertThat(sequence.subList(0, removedSaw.size())).as("the removed member saw a prefix").isEqualTo(removedSaw);
        for (String id : survivors) {
            View current = channels.get(id).view();
            assertThat("view " + current.id() + " " + current.members()).as(id + "'s channel view").isEqualTo(views.getLast());
        }
    }

    private static List<Long> ids(List<String> views) {
        return views.stream().map(v -> Long.parseLong(v.split(" ")[1])).toList();
    }

    private void connect(LocalNetwork net, String id, List<String> members) {
        List<String> mine = new CopyOnWriteArrayList<>();
        seen.put(id, mine);
        Channel ch = Tandem.channel().id(id).members(members.toArray(String[]::new)).protocol(new RaftProtocol(CONFIG))
                .transport(net::transport).requestTimeout(Duration.ofSeconds(2)).inMemoryStorage()
                .connect(new Receiver() {
                    @Override
                    public void receive(Message message) {
                        mine.add("msg " + message.text());
                    }

                    @Override
                    public void viewAccepted(View view) {
                        mine.add("view " + view.id() + " " + view.members());
                    }
                });
        channels.put(id, ch);
    }

    /** Sends through the leader (a follower would forward it; this keeps retries simple). */
    private void send(String text) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            try {
                channels.get(leader()).send(text).join();
                return;
            } catch (CompletionException e) {
                if (System.nanoTime() > deadline) throw e;
            }
        }
    }

    private String leader() {
        String[] leader = new String[1];
        Await.until(DEADLINE, () -> {
            for (Map.Entry<String, Channel> e : channels.entrySet()) {
                EngineStatus s = status(e.getKey());
                if (s != null && s.isLeader()) {
                    leader[0] = e.getKey();
                    return true;
                }
            }
            return false;
        }, () -> "no leader");
        return leader[0];
    }

    private EngineStatus status(String id) {
        try {
            return channels.get(id).node().status().join();
        } catch (CompletionException e) {
            return null;
        }
    }

    /** A membership change through the admin API of the member's node. */
    private void admin(String id, AdminRequest request) {
        channels.get(id).node().admin(request).join();
    }

    private static void retryWhileUnavailable(Runnable change) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            try {
                change.run();
                return;
            } catch (CompletionException e) {
                if (!(e.getCause() instanceof UnavailableException) || System.nanoTime() > deadline) throw e;
                Thread.onSpinWait();
            }
        }
    }
}
