package io.tandem.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.GroupView;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.engine.SnapshotTag;
import io.tandem.engine.TimerKey;
import io.tandem.roles.Role.Duty;
import io.tandem.sim.SimMeters;
import io.tandem.storage.DurableLog;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The role host's routing rules, driven event by event through a node context that records what
 * the host asks of the node (the host is a pure function of its events, so this is exact).
 */
class RoleHostTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");

    /** Background messages: no client request behind them. */
    interface Background extends ProtocolMessage {
        @Override
        default long requestId() {
            return 0;
        }
    }

    sealed interface ToPinger extends Background {}

    sealed interface ToPonger extends Background {}

    record Ping(int n) implements ToPonger {}

    record Pong(int n) implements ToPinger {}

    /** Belongs to both roles' inboxes. */
    record Beat(int n) implements ToPinger, ToPonger {}

    record Stray() implements Background {}

    record Tick() implements TimerKey {}

    /** A role that records everything it hears, and replies to a Ping with a Pong to the sender's node. */
    static class Recorder implements Engine {
        final String name;
        final List<String> heard;
        EngineContext ctx;

        Recorder(String name, List<String> heard) {
            this.name = name;
            this.heard = heard;
        }

        @Override
        public void start(EngineContext ctx) {
            this.ctx = ctx;
            heard.add(name + " start");
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            heard.add(name + " <- " + message + " from " + from);
            if (message instanceof Ping p) {
                ctx.send(from, new Pong(p.n()));
                if (p.n() < 2) ctx.send(ctx.self(), new Ping(p.n() + 1)); // a local send during a local delivery
            }
        }

        @Override
        public void onTimer(TimerKey key) {
            heard.add(name + " timer " + key);
        }

        @Override
        public void onClientRequest(ClientRequest request) {
            heard.add(name + " client " + request.requestId());
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            heard.add(name + " storage " + event);
        }

        @Override
        public void onApplied(long appliedIndex) {
            heard.add(name + " applied " + appliedIndex);
        }

        @Override
        public SnapshotTag snapshotTag(long index) {
            return SnapshotTag.epoch(index * 10);
        }
    }

    /** The node as the host sees it: records sends, timers and rejections; real in-memory storage. */
    static final class Node implements EngineContext {
        final List<String> sent = new ArrayList<>();
        final Map<TimerKey, Long> timers = new HashMap<>();
        final List<String> rejected = new ArrayList<>();
        final Map<String, byte[]> metaValues = new HashMap<>();
        final MetaStore meta = new MetaStore() {
            @Override
            public Optional<byte[]> get(String key) {
                return Optional.ofNullable(metaValues.get(key));
            }

            @Override
            public void put(String key, byte[] value, long token) {
                metaValues.put(key, value);
            }
        };
        final SimMeters meters = new SimMeters();

        @Override
        public NodeId self() {
            return N1;
        }

        @Override
        public List<NodeId> members() {
            return List.of(N1, N2);
        }

        @Override
        public long nowNanos() {
            return 0;
        }

        @Override
        public RandomGenerator random() {
            return new java.util.SplittableRandom(1);
        }

        @Override
        public void send(NodeId to, ProtocolMessage message) {
            sent.add(to + " " + message);
        }

        @Override
        public TimerKey schedule(long delayNanos, TimerKey key) {
            timers.put(key, delayNanos);
            return key;
        }

        @Override
        public void cancel(TimerKey key) {
            timers.remove(key);
        }

        @Override
        public DurableLog log() {
            return null; // the routing rules never touch the log itself
        }

        @Override
        public MetaStore meta() {
            return meta;
        }

        @Override
        public SnapshotStore snapshots() {
            return null;
        }

        @Override
        public void deliver(Committed entry) {}

        @Override
        public void serveRead(long requestId, long afterIndex) {}

        @Override
        public void complete(long requestId, byte[] result) {}

        @Override
        public void reject(long requestId, Rejection reason) {
            rejected.add(requestId + " " + reason);
        }

        @Override
        public void takeSnapshot(long token) {}

        @Override
        public Meters meters() {
            return meters;
        }

        final List<GroupView> views = new ArrayList<>();
        final List<Boolean> pollRequests = new ArrayList<>();

        @Override
        public void installView(GroupView view) {
            views.add(view);
        }

        @Override
        public GroupView view() {
            return views.isEmpty() ? new GroupView(1, members()) : views.getLast();
        }

        @Override
        public io.tandem.engine.Regions regions() {
            throw new UnsupportedOperationException("no regions in the routing tests");
        }

        @Override
        public void requestPolling(boolean poll) {
            pollRequests.add(poll);
        }
    }

    private final List<String> heard = new ArrayList<>();
    private final Recorder pinger = new Recorder("pinger", heard);
    private final Recorder ponger = new Recorder("ponger", heard);
    private final Node node = new Node();

    private RoleHost twoRoles() {
        RoleHost host = RoleHost.builder()
                .role(Role.of("pinger", pinger, ToPinger.class).owning(Duty.CLIENTS, Duty.LOG))
                .role(Role.of("ponger", ponger, ToPonger.class).owning(Duty.EXECUTION))
                .build();
        host.start(node);
        heard.clear();
        return host;
    }

    @Test
    void aMessageGoesToEveryRoleWhoseInboxHasItsTypeAndLocalSendsQueueBehindTheCurrentEvent() {
        RoleHost host = twoRoles();
        host.onMessage(N2, new Beat(7));
        assertThat(heard).containsExactly("pinger <- Beat[n=7] from n2", "ponger <- Beat[n=7] from n2");
        heard.clear();
        // The ponger answers a local Ping with a local Pong and a second Ping: both wait for the first
        // delivery to finish and then arrive in the order they were sent, as if over the network.
        host.onMessage(N1, new Ping(1));
        assertThat(heard).containsExactly(
                "ponger <- Ping[n=1] from n1",
                "pinger <- Pong[n=1] from n1",
                "ponger <- Ping[n=2] from n1",
                "pinger <- Pong[n=2] from n1");
        assertThat(node.sent).isEmpty();
        assertThat(node.meters.counter("tandem.roles.messages.local").count()).isEqualTo(3);
        // A remote sender's Ping is answered over the network.
        heard.clear();
        host.onMessage(N2, new Ping(5));
        assertThat(node.sent).containsExactly("n2 Pong[n=5]");
        host.onMessage(N2, new Stray());
        assertThat(node.meters.counter("tandem.roles.messages.unroutable").count()).isEqualTo(1);
    }

    @Test
    void equalTimerKeysOfTwoRolesAreTwoTimersAndEachFiresOnlyInItsRole() {
        RoleHost host = twoRoles();
        pinger.ctx.schedule(5, new Tick());
        ponger.ctx.schedule(9, new Tick());
        assertThat(node.timers).hasSize(2);
        pinger.ctx.cancel(new Tick());
        assertThat(node.timers).hasSize(1).containsValue(9L);
        host.onTimer(node.timers.keySet().iterator().next());
        assertThat(heard).containsExactly("ponger timer Tick[]");
    }

    @Test
    void eachRoleHasItsOwnMetaNamespaceAndHearsItsOwnSavesWithoutThePrefix() {
        RoleHost host = twoRoles();
        pinger.ctx.meta().put("round", new byte[] {1}, 11);
        ponger.ctx.meta().put("round", new byte[] {2}, 12);
        assertThat(node.meta().get("pinger.round")).hasValueSatisfying(v -> assertThat(v).containsExactly(1));
        assertThat(node.meta().get("ponger.round")).hasValueSatisfying(v -> assertThat(v).containsExactly(2));
        assertThat(ponger.ctx.meta().get("round")).hasValueSatisfying(v -> assertThat(v).containsExactly(2));
        host.onStorageEvent(new StorageEvent.MetaSaved("ponger.round", 12));
        assertThat(heard).containsExactly("ponger storage MetaSaved[key=round, token=12]");
    }

    @Test
    void storageEventsGoToTheOwnerOfTheirResourceAndAFailureToEveryRole() {
        RoleHost host = twoRoles();
        host.onStorageEvent(new StorageEvent.LogSynced(4));
        host.onApplied(3);
        host.onStorageEvent(new StorageEvent.StorageFailed("fsync", "disk full"));
        assertThat(heard).containsExactly(
                "pinger storage LogSynced[durableIndex=4]",
                "ponger applied 3",
                "pinger storage StorageFailed[operation=fsync, reason=disk full]",
                "ponger storage StorageFailed[operation=fsync, reason=disk full]");
        assertThat(host.snapshotTag(3)).isEqualTo(SnapshotTag.epoch(30));
    }

    @Test
    void aRoleThatUsesAResourceItDoesNotOwnFailsAtOnceNamingTheOwner() {
        twoRoles();
        assertThatThrownBy(() -> ponger.ctx.log()).isInstanceOf(IllegalStateException.class)
                .hasMessage("role ponger on n1 used the durable log, which belongs to role pinger (LOG)");
        assertThatThrownBy(() -> pinger.ctx.takeSnapshot(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("belongs to role ponger (EXECUTION)");
    }

    @Test
    void clientRequestsGoToTheClientRoleAndANodeWithoutOneRefusesThem() {
        RoleHost host = twoRoles();
        host.onClientRequest(ClientRequest.read(41, new byte[0], ReadPolicy.LINEARIZABLE));
        assertThat(heard).containsExactly("pinger client 41");

        RoleHost acceptorOnly = RoleHost.builder().role(Role.of("ponger", new Recorder("ponger", heard), ToPonger.class)).build();
        acceptorOnly.start(node);
        acceptorOnly.onClientRequest(ClientRequest.read(42, new byte[0], ReadPolicy.LINEARIZABLE));
        assertThat(node.rejected).containsExactly("42 Unavailable[reason=n1 runs no role that accepts client requests (roles: [ponger])]");
        // Told where the client roles run, it redirects there instead (and the runtime forwards).
        RoleHost redirecting = RoleHost.builder().role(Role.of("ponger", new Recorder("ponger", heard), ToPonger.class)).clientsAt(List.of(N2)).build();
        redirecting.start(node);
        redirecting.onClientRequest(ClientRequest.read(43, new byte[0], ReadPolicy.LINEARIZABLE));
        assertThat(node.rejected).last().isEqualTo("43 Redirect[targets=[n2]]");
    }

    @Test
    void theNodeIsPolledWhileAnyRolePollsAndOnlyThoseRolesAreCalled() {
        int[] polls = new int[2];
        Engine counting0 = new Recorder("a", heard) {
            @Override
            public int doWork() {
                return ++polls[0];
            }
        };
        Engine counting1 = new Recorder("b", heard) {
            @Override
            public int doWork() {
                polls[1]++;
                return 0;
            }
        };
        RoleHost host = RoleHost.builder().role(Role.of("a", counting0, ToPinger.class)).role(Role.of("b", counting1, ToPonger.class)).build();
        host.start(node);
        ((Recorder) counting0).ctx.requestPolling(true);
        ((Recorder) counting1).ctx.requestPolling(true);
        assertThat(host.doWork()).isEqualTo(1);
        ((Recorder) counting0).ctx.requestPolling(false);
        assertThat(host.doWork()).isZero();
        ((Recorder) counting1).ctx.requestPolling(false);
        assertThat(polls).containsExactly(1, 2);
        assertThat(node.pollRequests).as("the node hears only the changes of 'any role polls'").containsExactly(true, false);
        ((Recorder) counting1).ctx.installView(new GroupView(2, List.of(N1)));
        assertThat(node.view().id()).isEqualTo(2);
    }

    @Test
    void aHostRefusesTwoOwnersOfOneDutyTwoRolesOfOneNameAndOverlappingNamespaces() {
        assertThatThrownBy(() -> RoleHost.builder().role(Role.of("a", pinger).owning(Duty.LOG)).role(Role.of("b", ponger).owning(Duty.LOG)))
                .hasMessage("roles a and b both claim LOG; a node has one");
        assertThatThrownBy(() -> RoleHost.builder().role(Role.of("a", pinger)).role(Role.of("a", ponger)))
                .hasMessage("two roles named a on one node");
        assertThatThrownBy(() -> RoleHost.builder().role(Role.of("a", pinger).withMetaNamespace("x.")).role(Role.of("b", ponger).withMetaNamespace("x.y.")))
                .hasMessageContaining("overlap");
        assertThatThrownBy(() -> Role.of("Leader", pinger)).hasMessageContaining("must match");
        assertThat(Optional.of(RoleHost.builder().role(Role.of("a", pinger)).build().roles()).get()).hasSize(1);
    }
}
