package io.tandem.sim;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * A scripted run of real engines on the simulator, for the schedules random faults almost never
 * produce (Raft's Figure 8, a crash right after a reply whose write is not synced yet, a lease on a
 * clock that runs slow), in the spirit of MicroRaft's {@code LocalRaftGroup}: the test isolates a
 * member, drops the messages a rule picks, slows a member, sets a clock's rate, crashes a node at an
 * exact point and sends single client requests, then runs virtual time until a condition holds.
 *
 * <p>Everything else is the simulator's: the same nodes, disks (a crash loses every unsynced write;
 * {@link #options} sets no survival), network and clocks, and the protocol's invariants and the
 * built-in ones (state machine safety, view agreement) after every event. A violation stops the
 * scenario; {@link #failure()} reports it. No random faults and no random clients run.
 */
public final class SimScenario {
    /** Picks messages by sender, receiver and content (a drop rule, or a trigger). */
    @FunctionalInterface
    public interface MessageRule {
        boolean test(NodeId from, NodeId to, ProtocolMessage message);
    }

    /** A single client request and what became of it. */
    public static final class Call {
        private final long key;
        private final boolean read;
        private boolean done;
        private Long value;
        private Rejection rejection;

        private Call(long key, boolean read) {
            this.key = key;
            this.read = read;
        }

        /** True once the node answered (a result or a rejection). */
        public boolean done() {
            return done;
        }

        /** True if the node answered with a result (not a rejection). */
        public boolean ok() {
            return done && rejection == null;
        }

        /** A read's value (null if the register was never written); a write's answer carries none. */
        public Long value() {
            return value;
        }

        public Optional<Rejection> rejection() {
            return Optional.ofNullable(rejection);
        }

        @Override
        public String toString() {
            return (read ? "read " : "write ") + key + ": " + (!done ? "no answer" : rejection != null ? rejection.toString() : "ok " + value);
        }
    }

    private final Simulation sim;
    private final Map<String, MessageRule> drops = new LinkedHashMap<>();
    private final List<Trigger> triggers = new ArrayList<>();
    private final Set<Fault.Link> blocked = new HashSet<>();
    private final Map<Long, Call> calls = new LinkedHashMap<>();
    private long nextCallId;
    private long nextSession = 1_000_000;

    private final SimCaller caller = new SimCaller() {
        @Override
        public int thread() {
            return -1;
        }

        @Override
        public void onReply(long opId, NodeId from, SimClient.Outcome outcome) {
            Call call = calls.get(opId);
            if (call == null || call.done) return;
            call.done = true;
            switch (outcome) {
                case SimClient.Outcome.Result(byte[] bytes) -> call.value = call.read ? KvRegisterMachine.readValue(bytes) : null;
                case SimClient.Outcome.Rejected(Rejection reason) -> call.rejection = reason;
            }
        }
    };

    private SimScenario(Protocol protocol, SimOptions options, java.util.function.Consumer<String> trace) {
        this.sim = new Simulation(protocol, options.withSchedule(FaultSchedule.parse("")), trace);
        sim.scenarioRules(this::dropped, this::sent);
        sim.begin();
    }

    /**
     * Options for scripted runs: {@code nodes} members, no random faults, loss, duplication or
     * reordering, a fixed {@code latency} per message, disk flushes after 1 ms, unsynced writes lost on
     * a crash, clocks at the true rate until {@link #clockRate} changes one.
     */
    public static SimOptions options(int nodes, long latencyNanos) {
        return SimOptions.defaults().toBuilder()
                .nodes(nodes)
                .faults(EnumSet.noneOf(FaultKind.class))
                .networkLatency(new Latency.Fixed(latencyNanos))
                .lossRate(0).duplicateRate(0).reorderRate(0)
                .diskLatency(new Latency.Fixed(SimTime.millis(1)))
                .tornWrites(false).unsyncedSurvival(0)
                .clockDriftPpm(0)
                .build();
    }

    /** Starts the nodes of {@code protocol} (nothing has run yet). */
    public static SimScenario start(Protocol protocol, SimOptions options) {
        return new SimScenario(protocol, options, Boolean.getBoolean("tandem.scenario.trace") ? System.out::println : null);
    }

    /** Same, printing one line per event to {@code trace} (debugging a scenario). */
    public static SimScenario start(Protocol protocol, SimOptions options, java.util.function.Consumer<String> trace) {
        return new SimScenario(protocol, options, trace);
    }

    public SimCluster cluster() {
        return sim;
    }

    public List<NodeId> members() {
        return sim.members();
    }

    public long nowNanos() {
        return sim.now();
    }

    /** The node's current engine as {@code type}; fails while it is crashed. */
    public <T extends Engine> T engine(NodeId node, Class<T> type) {
        return sim.engine(node, type).orElseThrow(() -> new IllegalStateException(node + " is down or does not run a " + type.getSimpleName()));
    }

    /** The first violation found (invariant, engine error), if any; the scenario stops at it. */
    public Optional<SimFailure> failure() {
        return sim.failure();
    }

    // ---- time ----

    /** Runs every event up to {@code nanos} from now (or until a violation). */
    public void runFor(long nanos) {
        long end = sim.now() + nanos;
        while (sim.failure().isEmpty() && sim.nextEventTime() <= end) sim.scenarioStep();
        if (sim.failure().isEmpty()) sim.advanceTo(end);
    }

    /** Runs until {@code condition} holds (checked after every event), at most {@code maxNanos}; the condition's final value. */
    public boolean runUntil(BooleanSupplier condition, long maxNanos) {
        long end = sim.now() + maxNanos;
        while (!condition.getAsBoolean()) {
            if (sim.failure().isPresent()) return false;
            if (sim.nextEventTime() > end) {
                sim.advanceTo(end);
                return condition.getAsBoolean();
            }
            sim.scenarioStep();
        }
        return true;
    }

    // ---- faults ----

    /** Drops, on arrival, every message {@code rule} picks, until {@link #allow} removes the rule by name. */
    public void drop(String name, MessageRule rule) {
        drops.put(name, rule);
    }

    public void allow(String name) {
        drops.remove(name);
    }

    /** Removes every drop rule. */
    public void allowAll() {
        drops.clear();
    }

    /**
     * Crashes a node right after it sends a message {@code rule} picks: the message is on its way,
     * every write the node has not synced yet is lost. The trigger fires once.
     */
    public void crashAfterSending(MessageRule rule) {
        afterSending(rule, from -> crash(from));
    }

    /**
     * Runs {@code action} (given the sender) right after a node sends a message {@code rule} picks,
     * once: after the handler that sent it returns, at the same virtual time, with the message in flight.
     */
    public void afterSending(MessageRule rule, java.util.function.Consumer<NodeId> action) {
        triggers.add(new Trigger(rule, action));
    }

    private record Trigger(MessageRule rule, java.util.function.Consumer<NodeId> action) {}

    /** Cuts every link between {@code node} and the other members, both ways. */
    public void isolate(NodeId node) {
        for (NodeId other : sim.members()) {
            if (other.equals(node)) continue;
            blocked.add(new Fault.Link(node, other));
            blocked.add(new Fault.Link(other, node));
        }
        sim.network().partition(Set.copyOf(blocked));
    }

    /** Cuts the link from {@code from} to {@code to} only. */
    public void block(NodeId from, NodeId to) {
        blocked.add(new Fault.Link(from, to));
        sim.network().partition(Set.copyOf(blocked));
    }

    /** Heals every partition (drop rules stay). */
    public void heal() {
        blocked.clear();
        sim.network().heal();
    }

    /** Every message to or from {@code node} takes {@code factor} times as long. */
    public void slow(NodeId node, int factor) {
        sim.network().setSlow(node, factor);
    }

    public void unslow(NodeId node) {
        sim.network().clearSlow(node);
    }

    public void crash(NodeId node) {
        sim.simNode(node).crash();
    }

    public void restart(NodeId node) {
        SimNode n = sim.simNode(node);
        if (!n.isUp()) n.start();
    }

    /** From now on, {@code node}'s clock runs at {@code 1 + ppm / 10^6} of the true rate (its reading stays continuous). */
    public void clockRate(NodeId node, long ppm) {
        sim.simNode(node).setDriftPpm(ppm);
    }

    private boolean dropped(NodeId from, NodeId to, ProtocolMessage message) {
        for (MessageRule rule : drops.values()) {
            if (rule.test(from, to, message)) return true;
        }
        return false;
    }

    private boolean sent(NodeId from, NodeId to, ProtocolMessage message) {
        for (int i = 0; i < triggers.size(); i++) {
            Trigger t = triggers.get(i);
            if (t.rule().test(from, to, message)) {
                triggers.remove(i);
                SimNode sender = sim.simNode(from);
                long incarnation = sender.incarnation();
                // After the handler that sent it returns: the message is already in flight.
                sim.at(sim.now(), () -> {
                    if (sender.incarnation() == incarnation) t.action().accept(from);
                });
                return true;
            }
        }
        return false;
    }

    // ---- clients ----

    /** Sends one write of {@code value} to {@code key} to {@code node}, on a session of its own. */
    public Call write(NodeId node, long key, long value) {
        Call call = new Call(key, false);
        long id = ++nextCallId;
        calls.put(id, call);
        ClientRequest request = ClientRequest.command(sim.nextRequestId(), new ClientRequest.Session(nextSession++, 1), KvRegisterMachine.write(key, value));
        sim.sendToNode(node, new SimNode.ClientCall(caller, id, request));
        return call;
    }

    /** Sends one command with {@code payload} as it is (an engine's admin command), without a session. */
    public Call command(NodeId node, byte[] payload) {
        Call call = new Call(-1, false);
        long id = ++nextCallId;
        calls.put(id, call);
        sim.sendToNode(node, new SimNode.ClientCall(caller, id, ClientRequest.command(sim.nextRequestId(), ClientRequest.Session.NONE, payload)));
        return call;
    }

    /** Sends one read of {@code key} under {@code policy} to {@code node}. */
    public Call read(NodeId node, long key, ReadPolicy policy) {
        Call call = new Call(key, true);
        long id = ++nextCallId;
        calls.put(id, call);
        sim.sendToNode(node, new SimNode.ClientCall(caller, id, ClientRequest.read(sim.nextRequestId(), KvRegisterMachine.read(key), policy)));
        return call;
    }

    /** The state of every node, for assertion messages. */
    public String describe() {
        StringBuilder b = new StringBuilder("at ").append(SimTime.clock(sim.now())).append('\n');
        for (SimNode n : sim.nodes().values()) b.append("  ").append(n.status()).append('\n');
        sim.failure().ifPresent(f -> b.append("failure: ").append(f).append('\n'));
        return b.toString();
    }
}
