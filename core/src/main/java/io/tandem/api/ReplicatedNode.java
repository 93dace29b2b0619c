package io.tandem.api;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a replicated state machine (DESIGN §4): submit commands, run reads under a read
 * policy. Every future completes, with the result or with a typed {@link TandemException}
 * ({@link NotLeaderException}, {@link OverloadedException}, {@link RequestTimeoutException},
 * {@link UnavailableException}, {@link NodeStoppedException}); nothing hangs.
 *
 * <p>Futures complete on the node's execution thread: do not block in their callbacks (use the
 * {@code *Async} variants for slow work).
 */
public interface ReplicatedNode extends AutoCloseable {
    NodeId id();

    List<NodeId> members();

    /**
     * Waits until the group can order requests as far as this member can tell (it knows a leader,
     * or leads), so that a first request does not wait out an election: {@code node.awaitReady(
     * Duration.ofSeconds(10)).join()}. Requests submitted before are not refused either: they are
     * forwarded, or offered again, until their timeout.
     */
    CompletableFuture<EngineStatus> awaitReady(java.time.Duration timeout);

    /**
     * A linearizable write without a session: a retry after a timeout may apply twice. Submitted on
     * any member: a member that cannot order it (a follower) forwards it to one that can, and the
     * result comes back here (see {@link NodeBuilder#forwardRequests}).
     */
    default CompletableFuture<byte[]> submit(byte[] command) {
        return submit(command, ClientRequest.Session.NONE);
    }

    /** A linearizable write applied exactly once per (client id, sequence), even when retried. */
    CompletableFuture<byte[]> submit(byte[] command, ClientRequest.Session session);

    CompletableFuture<byte[]> query(byte[] query, ReadPolicy policy);

    /** The highest index this node's state machine has applied. */
    long appliedIndex();

    /**
     * What this node's engine knows now, the same fields for every protocol: role, leader, epoch,
     * voters and learners, commit index, this node's applied index and, on a leader, each peer's lag.
     * Fails with {@link NodeStoppedException} if the node does not run.
     */
    CompletableFuture<EngineStatus> status();

    /**
     * Asks for a membership change or a leadership transfer, e.g.
     * {@code node.admin(new AdminRequest.AddLearner(NodeId.of("n4")))} then, once n4 caught up,
     * {@code node.admin(new AdminRequest.Promote(NodeId.of("n4")))}. Send it to the leader; it
     * completes (with an empty result) once the change took effect, or fails like a command:
     * {@link NotLeaderException} on a follower, {@link UnavailableException} while another change is
     * under way (retry), {@link UnsupportedRequestException} when the protocol has no such operation.
     */
    CompletableFuture<byte[]> admin(AdminRequest request);

    @Override
    void close();
}
