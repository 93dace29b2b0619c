package io.tandem.api;

import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.statemachine.StateMachine;
import io.tandem.transport.FaultInjectingTransport;
import io.tandem.transport.FaultPlan;
import io.tandem.transport.LocalNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A whole replicated group in one JVM, in one call: for an application's own tests and for trying
 * Tandem out. Members {@code n1..nN} run the given protocol over the in-JVM transport (every message
 * still goes through the codec) with in-memory storage; the group can find its leader, cut a member
 * off, slow it down, heal, and stop one member or all.
 *
 * <pre>{@code
 * try (LocalGroup group = LocalGroup.start(3, Protocols.raft(), MyStateMachine::new)) {
 *     ReplicatedNode leader = group.leader(Duration.ofSeconds(10));
 *     leader.submit(command).join();
 *     group.isolate("n2");            // n2 hears no one and no one hears n2
 *     group.heal();
 * }
 * }</pre>
 */
public final class LocalGroup implements AutoCloseable {
    private final List<NodeId> members;
    private final Map<NodeId, ReplicatedNode> nodes = new LinkedHashMap<>();
    private final Map<NodeId, FaultInjectingTransport> transports = new ConcurrentHashMap<>();
    private FaultPlan plan = FaultPlan.NONE;
    private final java.util.Set<NodeId> isolated = ConcurrentHashMap.newKeySet();

    private LocalGroup(List<NodeId> members) {
        this.members = List.copyOf(members);
    }

    /** Starts {@code size} members ({@code n1..nN}) of {@code protocol}, each with its own state machine. */
    public static LocalGroup start(int size, Protocol protocol, Supplier<? extends StateMachine> stateMachines) {
        if (size < 1 || size > 64) throw new IllegalArgumentException("a local group has 1 to 64 members, not " + size);
        String[] names = new String[size];
        for (int i = 0; i < size; i++) names[i] = "n" + (i + 1);
        LocalNetwork network = LocalNetwork.of(protocol, names);
        LocalGroup group = new LocalGroup(java.util.Arrays.stream(names).map(NodeId::of).toList());
        try {
            for (String name : names) {
                ReplicatedNode node = Tandem.node().id(name).members(names).protocol(protocol)
                        .transport(setup -> {
                            FaultInjectingTransport t = new FaultInjectingTransport(network.transport(setup), name.hashCode());
                            group.transports.put(setup.self(), t);
                            return t;
                        })
                        .inMemoryStorage().stateMachine(stateMachines.get()).start();
                group.nodes.put(NodeId.of(name), node);
            }
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
        return group;
    }

    /** Every member still running, in order. */
    public List<ReplicatedNode> nodes() {
        synchronized (nodes) {
            return List.copyOf(nodes.values());
        }
    }

    /** Member {@code id} ("n1"...); an error if it does not exist or was stopped. */
    public ReplicatedNode node(String id) {
        synchronized (nodes) {
            ReplicatedNode n = nodes.get(NodeId.of(id));
            if (n == null) throw new IllegalArgumentException(id + " is not a running member of this group " + nodes.keySet());
            return n;
        }
    }

    /**
     * The running member whose engine says it leads, waiting up to {@code timeout} for one (the first
     * election, or the next after an isolation). An isolated member is never the answer, even while
     * it still believes it leads.
     */
    public ReplicatedNode leader(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (ReplicatedNode n : nodes()) {
                if (!isolated.contains(n.id()) && n.status().join().role() == EngineStatus.Role.LEADER) return n;
            }
            if (System.nanoTime() - deadline >= 0) throw new RequestTimeoutException("no member of " + members + " leads after " + timeout);
            LockSupport.parkNanos(1_000_000); // an election takes timeouts of tens of milliseconds at least
        }
    }

    /** Cuts {@code id} off from every other member, both ways, until {@link #heal()}. */
    public void isolate(String id) {
        isolated.add(NodeId.of(id));
        apply(plan.isolate(NodeId.of(id), members));
    }

    /** Delays every message {@code id} sends by {@code extra}: a slow member, not a dead one. */
    public void slow(String id, Duration extra) {
        apply(plan.withSlowNode(NodeId.of(id), extra));
    }

    /** Ends every isolation and slowness. */
    public void heal() {
        isolated.clear();
        apply(FaultPlan.NONE);
    }

    private synchronized void apply(FaultPlan next) {
        plan = next;
        for (FaultInjectingTransport t : transports.values()) t.setPlan(next);
    }

    /** Stops member {@code id} (as a crash of its process would, minus its in-memory disk). */
    public void stop(String id) {
        ReplicatedNode n;
        synchronized (nodes) {
            n = nodes.remove(NodeId.of(id));
        }
        if (n == null) throw new IllegalArgumentException(id + " is not a running member of this group");
        n.close();
    }

    @Override
    public void close() {
        List<ReplicatedNode> all;
        synchronized (nodes) {
            all = new ArrayList<>(nodes.values());
            nodes.clear();
        }
        for (ReplicatedNode n : all) n.close();
    }
}
