package io.tandem.sim;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.Rejection;
import io.tandem.routing.Router;
import java.util.SplittableRandom;

/**
 * One closed-loop benchmark client (issue 18): one operation outstanding at a time (a write, or with a
 * read share a linearizable read of that share of the operations), the next sent as soon
 * as the previous is answered, keys uniform over the key space, as the real cluster benchmark's load
 * generator does. It routes by the protocol's routing policy and follows redirects; a request with no
 * answer within the timeout is sent again on the same session (executed at most once). It records
 * no history: a benchmark run is judged by its latencies, not checked for linearizability.
 */
final class SimBenchClient implements SimCaller {
    /** Told each completed operation: when it completed and how long it took (virtual nanoseconds). */
    interface Recorder {
        void completed(long atNanos, long latencyNanos);
    }

    private final Simulation sim;
    private final int thread;
    private final int keys;
    private final double readShare;
    private final long timeoutNanos;
    private final SplittableRandom random;
    private final Router<NodeId> router;
    private final Recorder recorder;
    private long sequence;
    private long opId;
    private long invokedAt;
    private ClientRequest.Session session;
    private byte[] payload;
    private boolean read;
    private long retries;
    private long attempts;
    private boolean stopped;

    SimBenchClient(Simulation sim, int thread, int keys, double readShare, long timeoutNanos, long seed, Recorder recorder) {
        this.sim = sim;
        this.thread = thread;
        this.keys = keys;
        this.readShare = readShare;
        this.timeoutNanos = timeoutNanos;
        this.random = new SplittableRandom(seed * 1_000_003L + thread);
        this.router = sim.protocol().routing().newRouter(sim.members(), sim.members().get(thread % sim.members().size()));
        this.recorder = recorder;
    }

    long retries() {
        return retries;
    }

    void stop() {
        stopped = true;
    }

    void start() {
        next();
    }

    private void next() {
        if (stopped) return;
        opId = sim.nextOpId();
        invokedAt = sim.now();
        // A write-only workload draws no read coin, so its key sequence is the one it always was.
        read = readShare > 0 && random.nextDouble() < readShare;
        int key = random.nextInt(keys);
        if (!read) sequence++; // session sequences number the writes only
        session = read ? ClientRequest.Session.NONE : new ClientRequest.Session(thread + 1, sequence);
        payload = read ? KvRegisterMachine.read(key) : KvRegisterMachine.write(key, sequence);
        attempt();
    }

    private void attempt() {
        long id = opId;
        long attempt = ++attempts;
        // A read is not a session command: retrying it is harmless, it changes nothing.
        ClientRequest request = read ? ClientRequest.read(sim.nextRequestId(), payload, io.tandem.engine.ReadPolicy.LINEARIZABLE)
                : ClientRequest.command(sim.nextRequestId(), session, payload);
        for (NodeId target : router.targets()) sim.sendToNode(target, new SimNode.ClientCall(this, id, request));
        sim.at(sim.now() + timeoutNanos, () -> {
            if (opId != id || attempts != attempt || stopped) return;
            retries++;
            for (NodeId n : router.targets()) router.failed(n);
            attempt();
        });
    }

    @Override
    public int thread() {
        return thread;
    }

    @Override
    public void onReply(long replyOpId, NodeId from, SimClient.Outcome outcome) {
        if (replyOpId != opId) return; // an earlier attempt's answer
        switch (outcome) {
            case SimClient.Outcome.Result r -> {
                router.answered(from);
                opId = -1;
                recorder.completed(sim.now(), sim.now() - invokedAt);
                next();
            }
            case SimClient.Outcome.Rejected(Rejection reason) -> {
                retries++;
                if (reason instanceof Rejection.Redirect redirect && !redirect.targets().isEmpty()) {
                    router.redirected(from, redirect.targets());
                    attempt();
                } else {
                    router.failed(from);
                    long id = opId;
                    sim.at(sim.now() + SimTime.MILLIS, () -> {
                        if (opId == id && !stopped) attempt();
                    });
                }
            }
        }
    }
}
