package io.tandem.protocols.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.Protocol;
import io.tandem.protocols.multipaxos.BrokenMultiPaxos;
import io.tandem.protocols.raft.BrokenRaft;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.Simulation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The hand-written protocol mutants of Raft and MultiPaxos (issue 16) and what catches each: a seed of
 * the default {@code tandem sim} mix ({@link SimOptions#mix()}) or a named scripted scenario. The
 * default test replays each recorded seed (one seed per mutant, so it is fast) and checks that every
 * mutant has a catcher; {@code -Dtandem.mutants=true} runs the whole campaign, up to
 * {@code -Dtandem.mutants.seeds} (500) seeds per mutant, and prints the table for docs/simulation-reach.md.
 */
class MutantCampaignTest {
    /**
     * What catches a mutant: the first seed of the mix that fails (0: none in the campaign), and/or a
     * scenario test; or, for a mutant nothing can catch, why it is equivalent for safety.
     */
    record Catcher(long seed, String scenario, String survivesBecause) {}

    /** Filled from a campaign run (-Dtandem.mutants=true); the scenarios are the tests written for the schedule. */
    static final Map<String, Catcher> CATALOGUE = new LinkedHashMap<>();

    private static void raft(BrokenRaft.Bug bug, long seed, String scenario) {
        CATALOGUE.put(bug.protocolName(), new Catcher(seed, scenario, null));
    }

    private static void multiPaxos(BrokenMultiPaxos.Bug bug, long seed, String scenario) {
        CATALOGUE.put(bug.protocolName(), new Catcher(seed, scenario, null));
    }

    private static void survivor(BrokenMultiPaxos.Bug bug, String because) {
        CATALOGUE.put(bug.protocolName(), new Catcher(0, null, because));
    }

    static {
        raft(BrokenRaft.Bug.COMMIT_WITHOUT_QUORUM, 5, null);
        raft(BrokenRaft.Bug.VOTE_BEFORE_PERSIST, 0, "RaftScenarioTest.aVoteSentBeforeItIsDurableElectsTwoLeadersOfOneTerm");
        raft(BrokenRaft.Bug.STALE_READS, 1, null);
        raft(BrokenRaft.Bug.COMMIT_EARLIER_TERM_BY_COUNTING, 0, "RaftScenarioTest.figure8CountingReplicasOfAnEarlierTermLosesACommittedEntry");
        raft(BrokenRaft.Bug.LEASE_WITHOUT_DRIFT_BOUND, 0, "RaftScenarioTest.aLeaseWithoutTheDriftBoundServesAStaleRead");
        raft(BrokenRaft.Bug.ACK_BEFORE_DURABLE, 0, "RaftScenarioTest.anAcknowledgementSentBeforeTheSyncLosesACommittedEntry");
        raft(BrokenRaft.Bug.LEASE_KEPT_ACROSS_TRANSFER, 0, "RaftScenarioTest.aLeaseKeptAcrossATransferServesAStaleRead");
        raft(BrokenRaft.Bug.VOTE_FOR_STALE_LOG, 11, null);
        raft(BrokenRaft.Bug.SKIP_PREV_TERM_CHECK, 159, null);
        raft(BrokenRaft.Bug.COMMIT_PAST_VERIFIED, 60, null);
        raft(BrokenRaft.Bug.UNBOUNDED_FOLLOWER_QUEUE, 2, null);
        raft(BrokenRaft.Bug.WAIT_FOR_ALL_FOLLOWERS, 1, null);
        raft(BrokenRaft.Bug.REFUSED_VOTE_RESTARTS_TIMER, 0, "RaftScenarioTest.aTimerRestartedByEveryRefusedVoteRequestLeavesTheGroupWithoutLeader");
        raft(BrokenRaft.Bug.STALE_READ_IGNORES_MIN_INDEX, 1, null);
        raft(BrokenRaft.Bug.SNAPSHOT_KEEPS_CONFLICTING_SUFFIX, 0, "RaftScenarioTest.aSnapshotInstalledOverAConflictingLogThatKeepsItsSuffixIsCaught");
        raft(BrokenRaft.Bug.READ_BEFORE_TERM_COMMITS, 0, "RaftScenarioTest.aNewLeaderThatReadsBeforeItsTermCommitsServesAStaleRead");
        multiPaxos(BrokenMultiPaxos.Bug.SKIP_PHASE1, 5, null);
        // Seed 179 of the mix had "caught" it with the simulator's false liveness alarm (fixed in session 15: clients
        // that got their liveness answers with fault-phase budget left); no seed of 1,000 of the mix catches it since.
        // The crash-heavy options do, by safety (one value chosen per slot).
        multiPaxos(BrokenMultiPaxos.Bug.ACK_BEFORE_DURABLE, 0, "MultiPaxosSimulationTest.acknowledgingVotesBeforeTheyAreDurableIsCaught");
        multiPaxos(BrokenMultiPaxos.Bug.PROMISE_BEFORE_DURABLE, 0, "MultiPaxosScenarioTest.aPromiseSentBeforeItIsDurableLetsTwoValuesBeChosen");
        // Answering a lower ballot's Phase 1a without raising the promise reports the acceptor's votes
        // truthfully, and no vote below its (higher) promise can follow; that ballot's Phase 2a is still
        // refused. The proposer wastes a round: equivalent for safety.
        survivor(BrokenMultiPaxos.Bug.PROMISE_LOWER_BALLOT, "equivalent for safety: the votes it reports are complete below its promise, and Phase 2a below the promise is still refused");
        multiPaxos(BrokenMultiPaxos.Bug.ACCEPT_BELOW_PROMISE, 10, null);
        multiPaxos(BrokenMultiPaxos.Bug.WAIT_FOR_ALL_ACCEPTORS, 1, null);
        // Session 21: executes an Accept's own proposals on the claim it carries; the invariants see a slot executed that no
        // write quorum voted for on the first seed, before any fault.
        multiPaxos(BrokenMultiPaxos.Bug.CLAIM_BEYOND_LEADER, 1, null);
    }

    @Test
    void everyMutantOfRaftAndMultiPaxosIsListed() {
        List<String> missing = new ArrayList<>();
        for (BrokenRaft.Bug b : BrokenRaft.Bug.values()) if (!CATALOGUE.containsKey(b.protocolName())) missing.add(b.protocolName());
        for (BrokenMultiPaxos.Bug b : BrokenMultiPaxos.Bug.values()) if (!CATALOGUE.containsKey(b.protocolName())) missing.add(b.protocolName());
        assertThat(missing).as("mutants without an entry in the catalogue").isEmpty();
    }

    /** Each recorded seed still catches its mutant under the default mix (one seed each). */
    @Test
    void eachRecordedSeedCatchesItsMutant() {
        List<String> escaped = new ArrayList<>();
        for (Map.Entry<String, Catcher> e : CATALOGUE.entrySet()) {
            if (e.getValue().seed() == 0) continue;
            SimResult r = Simulation.run(BrokenProtocols.byName(e.getKey()), SimOptions.mix().withSeed(e.getValue().seed()));
            if (r.passed()) escaped.add(e.getKey() + " passed seed " + e.getValue().seed());
        }
        assertThat(escaped).isEmpty();
    }

    /** Every mutant has a catcher: a seed of the mix or a scenario written for it. */
    @Test
    void everyMutantHasACatcher() {
        List<String> uncaught = CATALOGUE.entrySet().stream()
                .filter(e -> e.getValue().seed() == 0 && e.getValue().scenario() == null && e.getValue().survivesBecause() == null).map(Map.Entry::getKey).toList();
        assertThat(uncaught).as("mutants neither a seed of the mix nor a scenario catches, and not explained").isEmpty();
    }

    /** The campaign: every mutant through up to N seeds of the mix, stopping at its first failure; prints the README table. */
    @Test
    void campaign() {
        if (!Boolean.getBoolean("tandem.mutants")) return;
        int seeds = Integer.getInteger("tandem.mutants.seeds", 500);
        StringBuilder table = new StringBuilder("| mutant | first failing seed of the mix (of " + seeds + ") | check | scenario |\n|---|---|---|---|\n");
        for (Map.Entry<String, Catcher> e : CATALOGUE.entrySet()) {
            Protocol p = BrokenProtocols.byName(e.getKey());
            SimRunner.Summary s = SimRunner.run(p, SimOptions.mix(), SimOptions.seeds(1, seeds), 1, null);
            Optional<SimResult> first = s.failures().stream().min((a, b) -> Long.compare(a.seed(), b.seed()));
            String seed = first.map(r -> Long.toString(r.seed())).orElse("none");
            String check = first.flatMap(SimResult::failure).map(SimFailure::check).orElse("-");
            String scenario = e.getValue().scenario() != null ? "`" + e.getValue().scenario() + "`" : e.getValue().survivesBecause() != null ? "survives: " + e.getValue().survivesBecause() : "-";
            String line = "| `" + e.getKey() + "` | " + seed + " | " + check + " | " + scenario + " |";
            System.out.println("mutant " + line + "  (" + s.line() + ")");
            table.append(line).append('\n');
        }
        System.out.println(table);
    }
}
