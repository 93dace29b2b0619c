package io.tandem.sim;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.routing.Router;
import java.util.List;

/**
 * One simulated client thread, following Jepsen's process model (verification.md §2.2): it runs one
 * operation at a time; an operation without an answer after the op timeout completes as
 * {@code :info} (a read as {@code :fail}, since a read changes nothing) and the thread continues as a
 * new process. It routes by the protocol's {@link io.tandem.routing.RoutingPolicy}, as the KV and
 * Jepsen clients do: it follows redirects, and moves on after a timeout. Retries of a command within one operation carry the same
 * client session, so the execution layer applies it at most once.
 */
final class SimClient implements SimCaller {
    /** What a node answered. */
    sealed interface Outcome {
        record Result(byte[] bytes) implements Outcome {}

        record Rejected(Rejection reason) implements Outcome {}
    }

    private record Pending(long id, SimWorkload.Next op, long invokedAt, ClientRequest.Session session, byte[] payload) {}

    private final Simulation sim;
    final int thread;
    private long process;
    private long sequence;
    private final Router<NodeId> router;
    /** Replies still expected for the current attempt (several targets under a first-reply policy). */
    private int awaiting;
    private Pending current;
    private int definiteAfterHeal;
    private boolean idle;
    private boolean done;
    private long retries;

    SimClient(Simulation sim, int thread, NodeId firstTarget) {
        this.sim = sim;
        this.thread = thread;
        this.process = thread;
        this.router = sim.protocol().routing().newRouter(sim.members(), firstTarget);
    }

    boolean isDone() {
        return done;
    }

    /** Whether this client got the liveness phase's definite answers (the fault-phase budget aside). */
    boolean answeredAfterHeal() {
        return definiteAfterHeal >= sim.options().livenessOps();
    }

    long retries() {
        return retries;
    }

    String status() {
        String op = current == null ? "idle" : current.op().f() + " key " + current.op().key() + " invoked at " + SimTime.clock(current.invokedAt());
        return "client " + thread + " (process " + process + ", routing " + router + "): " + op + ", " + definiteAfterHeal + " definite answers after heal";
    }

    void scheduleNext(long delayNanos) {
        sim.at(sim.now() + delayNanos, this::next);
    }

    /** The heal happened: an idle client starts its liveness operations. */
    void wake() {
        if (idle) {
            idle = false;
            scheduleNext(0);
        }
    }

    private void next() {
        if (done || current != null) return;
        if (!sim.healed() && sim.faultPhaseBudgetUsed()) {
            idle = true;
            return;
        }
        if (sim.healed() && sim.faultPhaseBudgetUsed() && definiteAfterHeal >= sim.options().livenessOps()) {
            done = true;
            sim.clientDone();
            return;
        }
        SimWorkload.Next op = sim.workload().next();
        sim.countIssued();
        sequence++;
        ClientRequest.Session session = new ClientRequest.Session(process + 1, sequence);
        byte[] payload = switch (op.f()) {
            case READ -> KvRegisterMachine.read(op.key());
            case WRITE -> KvRegisterMachine.write(op.key(), op.value());
            case CAS -> KvRegisterMachine.cas(op.key(), op.expected(), op.value());
        };
        current = new Pending(sim.nextOpId(), op, sim.now(), session, payload);
        sim.history().invoke(process, SimHistory.keyword(op.f()), invokeValue(op));
        long id = current.id();
        sim.at(sim.now() + sim.options().opTimeoutNanos(), () -> timeout(id));
        attempt();
    }

    private static List<Object> invokeValue(SimWorkload.Next op) {
        return switch (op.f()) {
            case READ -> SimHistory.tuple(op.key(), null);
            case WRITE -> SimHistory.tuple(op.key(), op.value());
            case CAS -> SimHistory.tuple(op.key(), List.of(op.expected(), op.value()));
        };
    }

    private void attempt() {
        Pending op = current;
        long requestId = sim.nextRequestId();
        if (op.op().stale()) {
            // A stale read may go to any member (it must wait until it applied the minimum index); the
            // member is picked from the attempt's id, so no random draw shifts the rest of the seed.
            ReadPolicy policy = ReadPolicy.stale(sim.highestApplied());
            List<NodeId> members = sim.members();
            NodeId target = members.get((int) Math.floorMod(requestId, (long) members.size()));
            awaiting = 1;
            sim.sendToNode(target, new SimNode.ClientCall(this, op.id(), ClientRequest.read(requestId, op.payload(), policy)));
            return;
        }
        ClientRequest request = op.op().f() == SimWorkload.Kind.READ
                ? ClientRequest.read(requestId, op.payload(), op.op().lease() ? ReadPolicy.LEASE : ReadPolicy.LINEARIZABLE)
                : ClientRequest.command(requestId, op.session(), op.payload());
        List<NodeId> targets = router.targets();
        awaiting = targets.size();
        for (NodeId target : targets) sim.sendToNode(target, new SimNode.ClientCall(this, op.id(), request));
    }

    @Override
    public int thread() {
        return thread;
    }

    @Override
    public void onReply(long opId, NodeId from, Outcome outcome) {
        if (current == null || current.id() != opId) return; // an answer to an attempt we gave up on
        switch (outcome) {
            case Outcome.Result(byte[] bytes) -> {
                if (!current.op().stale()) router.answered(from); // a stale read's member says nothing about the leader
                SimWorkload.Next op = current.op();
                switch (op.f()) {
                    case READ -> complete(Completion.OK, SimHistory.tuple(op.key(), KvRegisterMachine.readValue(bytes)));
                    case WRITE -> complete(Completion.OK, invokeValue(op));
                    case CAS -> complete(KvRegisterMachine.succeeded(bytes) ? Completion.OK : Completion.FAIL, invokeValue(op));
                }
            }
            case Outcome.Rejected(Rejection reason) -> {
                if (current.op().stale()) {
                    // not the router's pick: a stale read's rejection says nothing about the leader
                } else if (reason instanceof Rejection.Redirect r) {
                    router.redirected(from, r.targets());
                } else {
                    router.failed(from);
                }
                if (--awaiting > 0) return; // another target of this attempt may still answer
                retries++;
                sim.at(sim.now() + sim.retryBackoff(), () -> {
                    if (current != null && current.id() == opId) attempt();
                });
            }
        }
    }

    private void timeout(long opId) {
        if (current == null || current.id() != opId) return;
        SimWorkload.Next op = current.op();
        if (op.f() == SimWorkload.Kind.READ) {
            complete(Completion.FAIL_TIMEOUT, invokeValue(op)); // a read changed nothing: it definitely failed
        } else {
            complete(Completion.INFO_TIMEOUT, invokeValue(op));
            process += sim.options().clients(); // the indeterminate process is dead; the thread continues as a new one
            sequence = 0;
        }
        if (!op.stale()) for (NodeId n : router.targets()) router.failed(n);
    }

    private enum Completion { OK, FAIL, FAIL_TIMEOUT, INFO_TIMEOUT }

    private void complete(Completion how, Object value) {
        Pending op = current;
        current = null;
        switch (how) {
            case OK -> sim.history().ok(process, value);
            case FAIL -> sim.history().fail(process, value, null);
            case FAIL_TIMEOUT -> sim.history().fail(process, value, SimHistory.TIMEOUT);
            case INFO_TIMEOUT -> sim.history().info(process, value, SimHistory.TIMEOUT);
        }
        sim.countCompleted(how == Completion.OK ? "ok" : how == Completion.INFO_TIMEOUT ? "info" : "fail");
        boolean definite = how == Completion.OK || how == Completion.FAIL;
        if (sim.healed() && op.invokedAt() >= sim.healTime() && definite) definiteAfterHeal++;
        scheduleNext(sim.thinkTime());
    }
}
