package io.tandem.sim;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.Rejection;
import io.tandem.routing.Router;
import java.util.List;
import java.util.TreeMap;

/**
 * A client that keeps many commands in flight at once on one session (copilot.md §3.8) and retries
 * each, with the same sequence, until it is answered, across crashes, partitions and leader changes.
 * Every command adds 1 to one counter register, so a command applied twice shows in the counter:
 * at the end every replica that applied all of them must hold exactly their number
 * ({@link Simulation} checks it), whatever copies and retries were ordered.
 *
 * <p>Each command declares the client's low watermark, the lowest sequence still unanswered, which
 * is what lets the executor forget results the client will never ask for again.
 */
final class SimPipelinedClient implements SimCaller {
    /** A register no workload key reaches (the workload uses keys from 0 up). */
    static final long COUNTER_KEY = -1;
    static final long CLIENT_ID = 1L << 40;

    private final Simulation sim;
    private final int thread;
    private final int commands;
    private final Router<NodeId> router;
    /** Unanswered sequences and the attempt id of their latest try. */
    private final TreeMap<Long, Long> unanswered = new TreeMap<>();
    private long retries;
    private boolean done;

    SimPipelinedClient(Simulation sim, int thread, int commands, NodeId first) {
        this.sim = sim;
        this.thread = thread;
        this.commands = commands;
        this.router = sim.protocol().routing().newRouter(sim.members(), first);
    }

    int commands() {
        return commands;
    }

    boolean isDone() {
        return done;
    }

    long retries() {
        return retries;
    }

    @Override
    public int thread() {
        return thread;
    }

    /** Sends every command at once. */
    void start() {
        for (long s = 1; s <= commands; s++) unanswered.put(s, 0L);
        for (long s = 1; s <= commands; s++) attempt(s);
    }

    private void attempt(long sequence) {
        long opId = sim.nextOpId();
        unanswered.put(sequence, opId);
        // Everything below the lowest unanswered sequence has its answer: the client will never ask again.
        var session = new ClientRequest.Session(CLIENT_ID, sequence, unanswered.firstKey());
        ClientRequest request = ClientRequest.command(sim.nextRequestId(), session, KvRegisterMachine.add(COUNTER_KEY, 1));
        List<NodeId> targets = router.targets();
        for (NodeId target : targets) sim.sendToNode(target, new SimNode.ClientCall(this, opId, request));
        // Resend if no answer comes: the node may be down, partitioned away or no longer leading.
        sim.at(sim.now() + sim.options().opTimeoutNanos() / 2, () -> {
            if (unanswered.getOrDefault(sequence, -1L) != opId) return;
            for (NodeId target : targets) router.failed(target);
            retry(sequence);
        });
    }

    private void retry(long sequence) {
        retries++;
        sim.at(sim.now() + sim.retryBackoff(), () -> {
            if (unanswered.containsKey(sequence)) attempt(sequence);
        });
    }

    private long sequenceOf(long opId) {
        for (var e : unanswered.entrySet()) if (e.getValue() == opId) return e.getKey();
        return -1;
    }

    @Override
    public void onReply(long opId, NodeId from, SimClient.Outcome outcome) {
        long sequence = sequenceOf(opId);
        if (sequence < 0) return; // answered already, or an attempt superseded by a retry
        switch (outcome) {
            case SimClient.Outcome.Result r -> {
                router.answered(from);
                unanswered.remove(sequence);
                if (unanswered.isEmpty()) {
                    done = true;
                    sim.clientDone();
                }
            }
            case SimClient.Outcome.Rejected(Rejection reason) -> {
                if (reason instanceof Rejection.Redirect redirect) router.redirected(from, redirect.targets());
                else router.failed(from);
                unanswered.put(sequence, -2L); // this attempt is over; the retry makes a new one
                retry(sequence);
            }
        }
    }

    String status() {
        return "pipelined client " + thread + ": " + unanswered.size() + " of " + commands + " unanswered " + unanswered.keySet() + ", routing " + router;
    }
}
