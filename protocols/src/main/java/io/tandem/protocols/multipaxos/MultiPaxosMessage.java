package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.RequestIds;
import io.tandem.storage.SnapshotMeta;
import java.util.List;

/**
 * Every message between MultiPaxos roles. Each record belongs to the inbox of the role(s) that
 * handle it ({@link ToLeader}, {@link ToAcceptor}, {@link ToReplica}, {@link ToFrontend}); the node
 * composite ({@link MultiPaxosEngine}) hands a message to every co-located role whose inbox it is in,
 * and each role has one handler per record, named after it ({@code onAccept} for {@link Accept}).
 * Messages carry the id of the client request that caused them, or {@link RequestIds#BACKGROUND}
 * (DESIGN §3 rule 4).
 *
 * <pre>
 * write:   client -> frontend --Propose--> leader --Accept (2a)--> acceptors --Accepted (2b)--> leader
 *          leader --Chosen--> replicas apart from acceptors; the origin's replica executes and completes the client's future
 *          a replica on an acceptor's node reads the Accept too, and learns it chosen from the chosenThrough of the
 *          leader's next Accept to that node (or a ChosenThrough when none leaves within the linger)
 * batched: client -> batcher --ProposeBatch (size or timeout)--> leader: consecutive slots, one run
 * proxies: leader --ProxyAccept (one per run, round-robin)--> proxy leader --Accept--> a write quorum
 *          --Accepted--> proxy --Chosen--> replicas, --Decided (several runs)--> leader (frees its window)
 * leader:  proposer --Prepare (1a)--> acceptors --Promise (1b) | Nack--> proposer;
 *          leader --Heartbeat--> leaders (election), acceptors (HeartbeatAck: check-quorum), replicas (chosen prefix)
 * replies: (with unbatchers) replica of slot s (s mod R) --ReplyBatch--> unbatcher --ClientReplies--> each origin's frontend
 * read:    frontend --MaxVotedSlotQuery--> acceptors --MaxVotedSlot--> frontend (a read quorum: i = max)
 *          frontend --ReadAt(i)--> replica, which serves the read once it executed slot i
 * repair:  replica --ReplicaProgress--> leaders, acceptors; replica --Recover--> leader;
 *          replica --CatchUpRequest--> replica --CatchUpEntries | SnapshotOffer--> replica,
 *          replica --SnapshotChunkRequest--> replica --SnapshotChunk--> replica
 * </pre>
 */
public sealed interface MultiPaxosMessage extends ProtocolMessage {
    /** Handled by the proposer/leader role ({@link Leader}). */
    sealed interface ToLeader extends MultiPaxosMessage {}

    /** Handled by the acceptor role ({@link Acceptor}). */
    sealed interface ToAcceptor extends MultiPaxosMessage {}

    /** Handled by the replica role ({@link Replica}). */
    sealed interface ToReplica extends MultiPaxosMessage {}

    /** Handled by the client-facing role ({@link Frontend}). */
    sealed interface ToFrontend extends MultiPaxosMessage {}

    /** Handled by the proxy leader role ({@link ProxyLeader}, spec §2.1). */
    sealed interface ToProxy extends MultiPaxosMessage {}

    /** Handled by the unbatcher role ({@link Unbatcher}, spec §2.7). */
    sealed interface ToUnbatcher extends MultiPaxosMessage {}

    /** A vote an acceptor cast: {@code value} in {@code slot} at {@code ballot}. */
    record Vote(long slot, Ballot ballot, Value value) {}

    // ---- Phase 1 (spec §1.3, §1.6) ----

    /** Phase 1a: promise {@code ballot} for every slot from {@code fromSlot} on, and report your votes there. */
    record Prepare(Ballot ballot, long fromSlot) implements ToAcceptor {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    /**
     * Phase 1b, sent once the promise and the reported votes are durable. Votes for slots up to
     * {@code gcSlot} were forgotten: they are chosen and in replicas' snapshots. A long answer comes in
     * pages: {@code complete} is false and the proposer asks again from {@code nextSlot}.
     */
    record Promise(Ballot ballot, long gcSlot, List<Vote> votes, long nextSlot, boolean complete) implements ToLeader {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    /** The acceptor promised {@code promised}, above {@code rejected}: the proposer of {@code rejected} is stale. */
    record Nack(Ballot rejected, Ballot promised, long requestId) implements ToLeader {}

    // ---- Phase 2 ----

    /**
     * Phase 2a for the consecutive slots {@code firstSlot ..}: one value each (batching). It also carries the
     * leader's chosen watermark for its ballot (session 21, the Raft shape: what is chosen rides on the next
     * phase-2 message): every slot up to {@code chosenThrough} that this ballot's leader proposed is chosen with
     * the value proposed in this ballot (0: no claim; proxies relay none). A replica on the acceptor's node reads
     * the same message ({@link ToReplica}): it holds the values, and executes a held value once a claim of the
     * same ballot covers its slot, so the values do not travel a second time in a {@link Chosen}.
     */
    record Accept(Ballot ballot, long firstSlot, List<Value> values, long requestId, long chosenThrough)
            implements ToAcceptor, ToReplica, io.tandem.codec.SharedEncoding {
        /** An Accept without a chosen claim (a proxy's relay). */
        public Accept(Ballot ballot, long firstSlot, List<Value> values, long requestId) {
            this(ballot, firstSlot, values, requestId, 0);
        }

        public long lastSlot() {
            return firstSlot + values.size() - 1;
        }
    }

    /**
     * The leader's chosen watermark for {@code ballot} alone, as on {@link Accept}: sent to a replica on an
     * acceptor's node only when no Accept carried it there within the leader's linger (an idle leader), so
     * learners still learn in bounded time.
     */
    record ChosenThrough(Ballot ballot, long chosenThrough, long requestId) implements ToReplica, io.tandem.codec.SharedEncoding {}

    /**
     * Phase 2b: the acceptor durably voted in {@code [firstSlot, lastSlot]} at {@code ballot}. Slots up
     * to {@code gcSlot} were already chosen and forgotten, so they got no vote here.
     */
    record Accepted(Ballot ballot, long firstSlot, long lastSlot, long gcSlot, long requestId) implements ToLeader, ToProxy {}

    /**
     * Slots {@code firstSlot ..} are chosen with these values (the leader tells the replicas). Never changed once
     * built, and the leader hands the same instance to every replica, so the transport encodes it once per batch
     * rather than once per replica (session 17, as {@link Accept} since issue 25 part 10).
     */
    record Chosen(long firstSlot, List<Value> values, long requestId) implements ToReplica, io.tandem.codec.SharedEncoding {
        public long lastSlot() {
            return firstSlot + values.size() - 1;
        }
    }

    // ---- Proxy leaders (spec §2.1) ----

    /**
     * The leader hands one run of consecutive slots to one proxy leader: the proxy runs Phase 2 for it
     * exactly as given (PL-1: proxies never originate values).
     */
    record ProxyAccept(Ballot ballot, long firstSlot, List<Value> values, long requestId) implements ToProxy {
        public long lastSlot() {
            return firstSlot + values.size() - 1;
        }
    }

    /**
     * A proxy saw a write quorum vote at {@code ballot} for each run of slots in {@code runs} (pairs:
     * first slot, last slot) and announced them chosen; slots up to {@code gcSlot} were chosen before
     * and forgotten by a voter. One message reports several runs, so the leader does not receive one
     * message per command besides the command itself (spec §2.1: its work per command is receiving
     * the command and sending one Phase 2a). Malformed runs (odd length, first above last) are ignored.
     */
    record Decided(Ballot ballot, long[] runs, long gcSlot, long requestId) implements ToLeader {
        /** How many runs it reports (0 if malformed). */
        public int runCount() {
            return runs == null || runs.length % 2 != 0 ? 0 : runs.length / 2;
        }

        public long firstSlot(int run) {
            return runs[2 * run];
        }

        public long lastSlot(int run) {
            return runs[2 * run + 1];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Decided d && ballot.equals(d.ballot) && java.util.Arrays.equals(runs, d.runs) && gcSlot == d.gcSlot && requestId == d.requestId;
        }

        @Override
        public int hashCode() {
            return 31 * ballot.hashCode() + java.util.Arrays.hashCode(runs) + Long.hashCode(gcSlot);
        }

        @Override
        public String toString() {
            return "Decided[ballot=" + ballot + ", runs=" + java.util.Arrays.toString(runs) + ", gcSlot=" + gcSlot + ", requestId=" + requestId + "]";
        }
    }

    // ---- Leader liveness ----

    /**
     * The active leader's heartbeat: proposers defer to it (election), acceptors answer it
     * (check-quorum), replicas learn that every slot up to {@code chosenThrough} is chosen, and
     * frontends and batchers apart from the leaders learn where to send commands.
     */
    record Heartbeat(Ballot ballot, long chosenThrough, long seq) implements ToLeader, ToAcceptor, ToReplica, ToFrontend {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    /** An acceptor's answer to a heartbeat, with its promise (a higher one means the leader is stale). */
    record HeartbeatAck(Ballot ballot, Ballot promised, long seq) implements ToLeader {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    // ---- Client commands ----

    /** A frontend hands a client command to the leader; the sender is the command's origin. */
    record Propose(long requestId, ClientRequest.Session session, byte[] payload) implements ToLeader {}

    /** A batcher hands the leader several client commands at once (spec §2.6); each keeps its own request id and session. */
    record ProposeBatch(List<Propose> commands, long requestId) implements ToLeader {}

    /** A frontend asks the leader to order a read through the log. */
    record ProposeRead(long requestId) implements ToLeader {}

    /** The leader refused a proposal before giving it a slot: not the leader (with a hint), or overloaded. */
    record ProposeRejected(long requestId, NodeId leaderHint, boolean overloaded, String reason) implements ToFrontend {}

    // ---- Unbatchers (spec §2.7) ----

    /** The result of client command {@code requestId} of {@code origin} (session {@code session}), executed in {@code slot}. */
    record Reply(NodeId origin, long requestId, ClientRequest.Session session, long slot, byte[] result) {}

    /** A replica hands the results of the slots it answers for to one unbatcher (one message per drain of executions). */
    record ReplyBatch(List<Reply> replies, long requestId) implements ToUnbatcher {}

    /** An unbatcher hands one member the results of its clients' commands; its frontend completes them. */
    record ClientReplies(List<Reply> replies, long requestId) implements ToFrontend {}

    // ---- Leaderless linearizable reads (spec §2.4) ----

    /** PreRead: what is the highest slot you voted in? {@code round} numbers the frontend's read round. */
    record MaxVotedSlotQuery(long round, long requestId) implements ToAcceptor {}

    /** PreReadAck: the highest slot this acceptor ever voted in durably (any ballot), 0 if none. */
    record MaxVotedSlot(long round, long slot, long requestId) implements ToFrontend {}

    /** Serve read {@code requestId} once slot {@code slot} is executed; give up after {@code timeoutNanos}. */
    record ReadAt(long requestId, long slot, long timeoutNanos) implements ToReplica {}

    // ---- Replica progress and repair ----

    /** A replica executed every slot up to {@code executedSlot}; its newest snapshot covers {@code snapshotSlot}. */
    record ReplicaProgress(long executedSlot, long snapshotSlot) implements ToLeader, ToAcceptor {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    /** A replica lacks slots {@code fromSlot..toSlot}: resend what you know, fill what nobody proposed. */
    record Recover(long fromSlot, long toSlot) implements ToLeader {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    /** Replica to replica: send me chosen values from {@code fromSlot} on. */
    record CatchUpRequest(long fromSlot) implements ToReplica {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    /** Chosen values from {@code firstSlot} (possibly none); the sender executed up to {@code executedSlot}. */
    record CatchUpEntries(long firstSlot, List<Value> values, long executedSlot) implements ToReplica {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    /** The slots asked for are only in this snapshot: fetch it chunk by chunk. */
    record SnapshotOffer(SnapshotMeta snapshot) implements ToReplica {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    record SnapshotChunkRequest(SnapshotMeta snapshot, long offset) implements ToReplica {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }

    record SnapshotChunk(SnapshotMeta snapshot, long offset, byte[] data, boolean last) implements ToReplica {
        @Override
        public long requestId() {
            return RequestIds.BACKGROUND;
        }
    }
}
