package io.tandem.protocols.copilot;

import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.RequestIds;
import io.tandem.storage.SnapshotMeta;
import java.util.List;

/**
 * Copilot's wire messages (copilot.md §3.1), one record per row of the catalogue. {@code log} is 0 for
 * the pilot's log and 1 for the copilot's; {@code slot} indexes it from 0; a dependency of -1 is ⊥.
 * Replies echo the ballot they answer so that stale replies are recognised and ignored (§5.1 item 8).
 */
public sealed interface CopilotMessage extends ProtocolMessage {
    int log();

    long slot();

    /**
     * DESIGN §3 rule 4: the client request behind the message. A batch names its first command's
     * request; replies, takeovers and catch-up are counted as background.
     */
    @Override
    default long requestId() {
        return RequestIds.BACKGROUND;
    }

    private static long firstRequest(List<Command> cmds) {
        return cmds == null || cmds.isEmpty() ? RequestIds.BACKGROUND : cmds.get(0).requestId();
    }

    /**
     * Phase 1 of the pilot of {@code log} for {@code slot} at the slot's initial ballot; also the ping-pong ball (§3.3, §4.1).
     * {@code commits}: decisions of the sender's earlier slots that it held back for this member, a non-pilot replica
     * ({@link CopilotConfig#commitPiggyback}); each is handled as if it had come as its own {@link Commit}, before the
     * proposal. Empty for the other pilot, which had them at once.
     */
    record FastAccept(int log, long slot, Ballot ballot, List<Command> cmds, long dep, List<Commit> commits) implements CopilotMessage {
        public FastAccept {
            commits = commits == null ? List.of() : commits;
        }

        public FastAccept(int log, long slot, Ballot ballot, List<Command> cmds, long dep) {
            this(log, slot, ballot, cmds, dep, List.of());
        }

        @Override
        public long requestId() {
            return firstRequest(cmds);
        }
    }

    /**
     * Answer to a FastAccept. {@code ok} false: the ballot was refused, {@code promised} is the higher
     * promise. Otherwise {@code dep} is the initial dependency (agreement) or a higher suggestion (§3.4).
     * {@code depView}: the view of the other log this replica had promised when it took the
     * dependency (§4.2 "nullDepSafe"; see {@link CopilotEngine#allNull}).
     */
    record FastAcceptReply(int log, long slot, Ballot ballot, boolean ok, long dep, Ballot promised, int depView) implements CopilotMessage {}

    /** Phase 2 (slow path, takeover, recovery): accept {@code cmds} with final dependency {@code dep} at {@code ballot} (§3.5). */
    record Accept(int log, long slot, Ballot ballot, List<Command> cmds, long dep) implements CopilotMessage {
        @Override
        public long requestId() {
            return firstRequest(cmds);
        }
    }

    /** Answer to an Accept; {@code depView} as in {@link FastAcceptReply}. */
    record AcceptReply(int log, long slot, Ballot ballot, boolean ok, Ballot promised, int depView) implements CopilotMessage {}

    /**
     * The decision; one-way, may arrive before anything else about the slot (§3.5, §5.1 item 10).
     * {@code depView}: the highest view of the other log that a member of the deciding quorum had
     * promised when it took the dependency, -1 if unknown (null-dependency elimination then never
     * skips an uncommitted slot for this entry).
     */
    record Commit(int log, long slot, List<Command> cmds, long dep, int depView) implements CopilotMessage {
        @Override
        public long requestId() {
            return firstRequest(cmds);
        }
    }

    /** Phase 1 of a fast takeover or recovery at a ballot above the slot's initial one (§3.9). */
    record Prepare(int log, long slot, Ballot ballot) implements CopilotMessage {}

    /**
     * Answer to a Prepare: on {@code ok}, the replica's progress on the slot ({@code status},
     * {@code accepted} ballot, {@code cmds}, {@code dep}); otherwise the higher {@code promised} ballot.
     */
    record PrepareReply(int log, long slot, Ballot ballot, boolean ok, Ballot promised, Status status, Ballot accepted, List<Command> cmds, long dep)
            implements CopilotMessage {}

    /**
     * Learner catch-up (§3.11 [rec]): "send me the commits of slots {@code slot..last} of {@code log}
     * you have". Answered with {@link Commit}s; slots the peer has not committed are skipped.
     */
    record CommitQuery(int log, long slot, long last) implements CopilotMessage {}

    /**
     * View change, phase 1 (§3.10): candidate member {@code view % n} asks every member to promise view
     * {@code view} of {@code log}: to take no message of that log at a ballot of an older view.
     */
    record ViewChange(int log, int view) implements CopilotMessage {
        @Override
        public long slot() {
            return 0;
        }
    }

    /**
     * Answer to a {@link ViewChange}: on {@code ok}, the promise is durable and {@code highestSlot} is
     * the highest slot of the log this member knows exists (-1: none); otherwise {@code promised} is
     * the higher view it promised before.
     */
    record ViewChangeReply(int log, int view, boolean ok, int promised, long highestSlot) implements CopilotMessage {
        @Override
        public long slot() {
            return 0;
        }
    }

    /**
     * View change, phase 2, and the pilot's heartbeat: view {@code view} of {@code log} is established
     * and its pilot proposes fresh commands from {@code startSlot} on (every slot below it that anyone
     * may hold is only ever recovered). Sent once a majority promised, then every beacon interval.
     */
    record StartView(int log, int view, long startSlot) implements CopilotMessage {
        @Override
        public long slot() {
            return startSlot;
        }
    }

    /**
     * The ping-pong ball (§4.1) on its own: the pilot of {@code log} just chose {@code slot} with
     * dependency {@code dep}, sent to the other pilot at once, while the pilot's own vote on the
     * proposal is still on its way to disk (the FastAccept itself leaves only after it). Carries no
     * value, so a pilot that crashes before its vote is durable leaves nothing anyone could commit: the
     * worst is a dependency on a slot that a takeover fills with a no-op. {@code dep} tells the other
     * pilot whether the ball answers its latest proposal (if not, the ball is ignored).
     */
    record Ball(int log, long slot, long dep) implements CopilotMessage {}

    /**
     * State transfer: the sender's newest snapshot, offered because the receiver asked about slots the
     * sender compacted (a phase message, a catch-up query), so the receiver is behind what the sender
     * executed. The receiver pulls it chunk by chunk ({@link SnapshotChunkRequest}); not about one log.
     */
    record SnapshotOffer(SnapshotMeta snapshot) implements CopilotMessage {
        @Override
        public int log() {
            return 0;
        }

        @Override
        public long slot() {
            return 0;
        }
    }

    /** "Send me {@code snapshot}'s bytes from {@code offset} on"; answered with one {@link SnapshotChunk}, or an offer of a newer snapshot. */
    record SnapshotChunkRequest(SnapshotMeta snapshot, long offset) implements CopilotMessage {
        @Override
        public int log() {
            return 0;
        }

        @Override
        public long slot() {
            return 0;
        }
    }

    /** One chunk of a snapshot; {@code last}: the final one. */
    record SnapshotChunk(SnapshotMeta snapshot, long offset, byte[] data, boolean last) implements CopilotMessage {
        @Override
        public int log() {
            return 0;
        }

        @Override
        public long slot() {
            return 0;
        }
    }
}
