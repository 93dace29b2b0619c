package io.tandem.protocols.copilot;

import java.util.List;

/**
 * One slot of one log as this replica holds it (copilot.md §2.2). Mutable, owned by the engine's loop.
 * {@code dep} is the dependency into the other log: the entry is ordered after every entry up to and
 * including {@code dep} there; -1 is ⊥ (no constraint).
 */
final class Slot {
    static final long NO_DEP = -1;

    final int log;
    final long index;
    Status status = Status.NONE;
    /** The batch, once known from any message; null while unknown. Empty is a no-op. */
    List<Command> cmds;
    long dep = NO_DEP;
    /**
     * The dependency this replica agreed to when it processed the FastAccept (the initial one, or its own
     * suggestion), lowered to the final one once known: the compatibility check reads it (§3.4).
     */
    long vouchedDep = NO_DEP;
    Ballot promised = Ballot.NONE;
    Ballot accepted = Ballot.NONE;
    /** Of a committed slot: the view of the other log its dependency was taken in ({@link CopilotMessage.Commit#depView}); -1 unknown. */
    int depView = -1;
    /**
     * An own slot of this member's log, reserved before a restart, that it holds no durable vote for:
     * as its pilot it may have sent a FastAccept for it before its own vote was durable, and lost that
     * vote in the crash. Until the slot commits, the compatibility check treats it as a vote with
     * dependency ⊥ (the strictest), so this member never acts against a vote others may count
     * ({@link CopilotRules#pickRecovery} counts a silent pilot as a fast-accept). Not persisted: every
     * restart derives it again from the reservation record.
     */
    boolean voteLost;
    /**
     * Of a slot that ran here: the other log's slot it ran ahead of, if another replica may run that one
     * first ({@link CopilotEngine#execute}: the other log's head was not known here to be ordered after
     * this slot), else ⊥. Compaction keeps the slot while its snapshot has not run that other slot
     * ({@link CopilotRules#keptForPeers}). Not persisted: a restart that takes kept slots back sets it
     * conservatively ({@code CopilotEngine#restoreBelowCursor}).
     */
    long ranBefore = NO_DEP;
    /** The batch of the last record appended for this slot (identity): a record with the same batch need not repeat it. */
    List<Command> writtenCmds;
    /** When this replica learned the slot committed (its clock), for the execution-wait distribution. */
    long committedAt;

    Slot(int log, long index) {
        this.log = log;
        this.index = index;
    }

    boolean committed() {
        return status == Status.COMMITTED;
    }

    /** Known to have been processed here with a dependency the replica vouched for (§3.4 "already processed"). */
    boolean vouched() {
        return status.atLeast(Status.PRE_ACCEPTED);
    }

    @Override
    public String toString() {
        return log + "." + index + "[" + status + " dep=" + dep + " vouched=" + vouchedDep + " p=" + promised + " a=" + accepted
                + (cmds == null ? " ?" : " " + cmds.size() + " cmds") + (voteLost ? " vote-lost" : "") + "]";
    }
}
