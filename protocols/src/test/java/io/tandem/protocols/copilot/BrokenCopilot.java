package io.tandem.protocols.copilot;

import java.util.Locale;

/**
 * Deliberately broken Copilot variants (test code only, never shipped): each plants one wrong rule
 * into an otherwise correct engine, so the simulation tests prove they can fail.
 */
public final class BrokenCopilot {
    private BrokenCopilot() {}

    public enum Bug {
        /**
         * The execution rule runs whichever head is committed, looking past the dependency of each entry
         * into the other log (executing before the dependencies committed and ran).
         */
        EXECUTE_PAST_DEPENDENCIES,
        /** The fast path commits one agreement short of the fast quorum. */
        FAST_PATH_BELOW_FAST_QUORUM,
        /** A takeover prepares at the slot pilot's own ballot instead of a higher one. */
        TAKEOVER_WITHOUT_HIGHER_BALLOT,
        /**
         * Pilot election without phase 1: a candidate establishes its view on its own promise alone, so
         * the old pilot (suspected, but alive) and the new one both commit fresh values in the same slots.
         */
        ELECTION_WITHOUT_PROMISES,
        /**
         * A newly elected pilot does not recover its log's in-flight slots: it proposes fresh commands
         * from the first slot it has not executed, over slots the old pilot may have committed.
         */
        NEW_PILOT_REUSES_IN_FLIGHT_SLOTS,
        /**
         * Compaction reaches past the execution cursor: slots not yet executed here (perhaps not yet
         * committed) are dropped with the executed ones, votes and all.
         */
        COMPACT_UNEXECUTED,
        /**
         * A replica that resumes from a snapshot (installed from a peer, or after a restart) starts with an
         * empty session table instead of the snapshot's: it runs the other pilot's copy of a command that
         * already ran before the snapshot.
         */
        INSTALL_WITHOUT_SESSIONS,
        /**
         * Not a safety bug: compaction keeps only the slots whose dependency ran ahead of the other log's
         * snapshot cursor (copilot10's rule), not those that ran ahead of an other-log head a peer may run
         * first ({@link Slot#ranBefore}), so two replicas whose execution points are not nested can each
         * compact what the other needs and stall (seed 43 with copilot12's ping-pong rule).
         */
        KEEP_ONLY_DEPENDENCY_RUN_AHEAD,
        /** Not a safety bug: every quorum waits for every replica, so one slow replica sets everyone's latency (fail-slow rule 1). */
        WAIT_FOR_EVERY_REPLICA,
        /**
         * Not a safety bug: the candidate order before copilot13's fix of seed 1649. A member that its
         * established view names as a log's pilot but that holds no pilot role (it promised a newer view to
         * a candidacy that failed) never stands for that log, as if it were the live pilot, so a log can be
         * left with nobody standing ({@link CopilotRules#candidateRank}).
         */
        NAMED_PILOT_WITHOUT_ROLE_NEVER_STANDS;

        public String protocolName() {
            return "copilot-broken-" + name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** Elections after 200 ms of silence (beacons every 50 ms), so a five-second simulation goes through several. */
    public static final CopilotConfig QUICK_ELECTIONS = CopilotConfig.DEFAULTS.withElection(java.time.Duration.ofMillis(50), java.time.Duration.ofMillis(200));

    /** Snapshots every four slots, nothing retained behind them, chunks of 64 bytes: compaction and state transfer all the time. */
    public static final CopilotConfig SMALL_SNAPSHOTS = CopilotConfig.DEFAULTS.withSnapshots(4, 0, 64);

    public static CopilotProtocol protocol(Bug bug, CopilotConfig config) {
        CopilotRules rules = switch (bug) {
            case EXECUTE_PAST_DEPENDENCIES -> new CopilotRules() {
                @Override
                Step next(long a, long b, Slots slots, boolean nullDepElimination, NullCheck isNull) {
                    Slot x = slots.get(0, a), y = slots.get(1, b);
                    if (x != null && x.committed()) return Step.RUN_PILOT;
                    if (y != null && y.committed()) return Step.RUN_COPILOT;
                    return Step.BLOCKED;
                }
            };
            case FAST_PATH_BELOW_FAST_QUORUM -> new CopilotRules() {
                @Override
                int fastQuorum(int n) {
                    return super.fastQuorum(n) - 1;
                }
            };
            case TAKEOVER_WITHOUT_HIGHER_BALLOT -> new CopilotRules() {
                @Override
                Ballot takeoverBallot(Ballot above, Ballot current, int self) {
                    return current;
                }
            };
            case ELECTION_WITHOUT_PROMISES -> new CopilotRules() {
                @Override
                int viewQuorum(int n) {
                    return 1;
                }
            };
            case NEW_PILOT_REUSES_IN_FLIGHT_SLOTS -> new CopilotRules() {
                @Override
                long pilotFirstSlot(long viewStart, long highestHere, long executed, boolean elected) {
                    return elected ? executed : super.pilotFirstSlot(viewStart, highestHere, executed, elected);
                }

                @Override
                long proposalSlot(long next, long highestHere) {
                    return next; // and then goes on from there, over whatever it has seen
                }
            };
            case COMPACT_UNEXECUTED -> new CopilotRules() {
                @Override
                long compactionPoint(long snapshotCursor, long cursor, long retention) {
                    return Math.max(snapshotCursor, cursor) + 2;
                }
            };
            case INSTALL_WITHOUT_SESSIONS -> new CopilotRules() {
                @Override
                ExecutedCommands sessionsAfter(Checkpoint c) {
                    return new ExecutedCommands();
                }
            };
            case KEEP_ONLY_DEPENDENCY_RUN_AHEAD -> new CopilotRules() {
                @Override
                boolean keptForPeers(Slot s, long otherCursor) {
                    return s.committed() && s.dep >= otherCursor;
                }
            };
            case WAIT_FOR_EVERY_REPLICA -> new CopilotRules() {
                @Override
                int fastQuorum(int n) {
                    return n;
                }

                @Override
                int slowQuorum(int n) {
                    return n;
                }
            };
            case NAMED_PILOT_WITHOUT_ROLE_NEVER_STANDS -> new CopilotRules() {
                @Override
                int candidateRank(int n, int self, int pilotOfLog, int pilotOfOther) {
                    return self == pilotOfLog ? -1 : super.candidateRank(n, self, pilotOfLog, pilotOfOther);
                }
            };
        };
        return new CopilotProtocol(bug.protocolName(), config, rules, null);
    }

}
