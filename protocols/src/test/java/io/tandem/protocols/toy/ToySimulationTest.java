package io.tandem.protocols.toy;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.sim.FaultMinimizer;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.Simulation;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulator against the toy engine and its buggy twin. Replay one seed of any of these tests
 * with {@code -Dtandem.sim.seed=N}.
 */
class ToySimulationTest {
    private static final SimOptions OPTIONS = SimOptions.defaults();

    private static String failures(SimRunner.Summary s) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        return b.toString();
    }

    @Test
    void theCorrectEnginePassesTwoHundredSeedsWithAllFaults() {
        SimRunner.Summary s = SimRunner.run(ToyProtocol.correct(), OPTIONS, SimOptions.seeds(1, 200), 5, null);
        System.out.println("toy-pb: " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
        assertThat(s.ops()).isGreaterThan((long) s.seeds() * OPTIONS.ops() * 9 / 10);
    }

    @Test
    void theBuggyTwinIsCaughtWithinThreeHundredSeeds() {
        SimRunner.Summary s = SimRunner.run(new BuggyToy(), OPTIONS, SimOptions.seeds(1, 300), 1, null);
        assertThat(s.failures()).as("the buggy twin survived %d seeds", s.seeds()).isNotEmpty();
        SimResult caught = s.failures().getFirst();
        System.out.println("toy-pb-buggy caught at seed " + caught.seed() + " (after " + s.seeds() + " seeds):\n" + SimRunner.describeFailure(caught));
        // Replaying the seed gives the same failure at the same moment.
        SimResult replay = Simulation.run(new BuggyToy(), caught.options());
        assertThat(replay.failure()).isEqualTo(caught.failure());
        assertThat(replay.traceHash()).isEqualTo(caught.traceHash());
    }

    @Test
    void withoutInvariantsTheLinearizabilityCheckAloneCatchesTheBuggyTwin() {
        SimOptions blackBox = OPTIONS.withInvariants(false);
        SimRunner.Summary s = SimRunner.run(new BuggyToy(), blackBox, SimOptions.seeds(1, 300), 1, null);
        assertThat(s.failures()).as("the buggy twin survived %d seeds", s.seeds()).isNotEmpty();
        SimResult caught = s.failures().getFirst();
        System.out.println("toy-pb-buggy caught by linearizability alone at seed " + caught.seed() + ":\n" + SimRunner.describeFailure(caught));
        assertThat(caught.failure()).hasValueSatisfying(f -> assertThat(f.kind()).isEqualTo(SimFailure.Kind.LINEARIZABILITY));
        // The correct engine's histories pass the same check.
        SimRunner.Summary correct = SimRunner.run(ToyProtocol.correct(), blackBox, SimOptions.seeds(1, 20), 1, null);
        assertThat(correct.failures()).as(failures(correct)).isEmpty();
    }

    @Test
    void theSameSeedGivesTheSameRunBitForBit() {
        SimOptions options = OPTIONS.withSeed(4242);
        SimResult a = Simulation.run(ToyProtocol.correct(), options);
        SimResult b = Simulation.run(ToyProtocol.correct(), options);
        assertThat(a.events()).isGreaterThan(1000);
        assertThat(a.schedule().size()).isPositive();
        assertThat(b.traceHash()).isEqualTo(a.traceHash());
        assertThat(b.events()).isEqualTo(a.events());
        assertThat(b.history()).isEqualTo(a.history());
        assertThat(b.stats()).isEqualTo(a.stats());

        SimResult other = Simulation.run(ToyProtocol.correct(), options.withSeed(4243));
        assertThat(other.traceHash()).isNotEqualTo(a.traceHash());
    }

    /** Prints the trace hash of one seed; run in a fresh JVM by the test below. */
    public static final class PrintTraceHash {
        public static void main(String[] args) {
            System.out.println(Simulation.run(ToyProtocol.correct(), OPTIONS.withSeed(Long.parseLong(args[0]))).traceHash());
        }
    }

    @Test
    void theSameSeedGivesTheSameRunInAnotherJvm() throws Exception {
        // Catches what a second run in the same JVM cannot: hash seeds of Set.of, identity hashes, ...
        long here = Simulation.run(ToyProtocol.correct(), OPTIONS.withSeed(31337)).traceHash();
        String javaCommand = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(javaCommand, "-cp", System.getProperty("java.class.path"), PrintTraceHash.class.getName(), "31337")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out.lines().filter(l -> l.matches("-?\\d+")).findFirst()).as(out).contains(Long.toString(here));
    }

    @Test
    void messagesThroughTheCodecGiveTheSameRun() {
        SimOptions byValue = OPTIONS.withSeed(77).withNetwork(OPTIONS.networkLatency(), OPTIONS.lossRate(), OPTIONS.duplicateRate(), OPTIONS.reorderRate(), true);
        SimResult encoded = Simulation.run(ToyProtocol.correct(), byValue);
        SimResult byReference = Simulation.run(ToyProtocol.correct(), byValue.withNetwork(OPTIONS.networkLatency(), OPTIONS.lossRate(), OPTIONS.duplicateRate(), OPTIONS.reorderRate(), false));
        assertThat(encoded.passed()).isTrue();
        // Kryo round trips every message to an equal record, so the run is the same.
        assertThat(encoded.traceHash()).isEqualTo(byReference.traceHash());
        SimRunner.Summary s = SimRunner.run(ToyProtocol.correct(), byValue, SimOptions.seeds(500, 20), 1, null);
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void theMinimizerShrinksTheFaultScheduleOfAFailure() {
        SimRunner.Summary s = SimRunner.run(new BuggyToy(), OPTIONS, SimOptions.seeds(1, 300), 1, null);
        SimResult failing = s.failures().getFirst();
        FaultMinimizer.Minimized m = FaultMinimizer.minimize(new BuggyToy(), failing, 100, null);
        System.out.println("minimized seed " + failing.seed() + " from " + failing.schedule().size() + " to " + m.schedule().size()
                + " fault events in " + m.runs() + " runs: " + m.schedule().format());
        assertThat(m.schedule().size()).isLessThanOrEqualTo(failing.schedule().size());
        assertThat(m.result().failure()).hasValueSatisfying(f -> assertThat(f.kind()).isEqualTo(failing.failure().orElseThrow().kind()));

        // The printed schedule replays to the same failure.
        SimOptions replay = failing.options().withSchedule(FaultSchedule.parse(m.schedule().format()));
        assertThat(Simulation.run(new BuggyToy(), replay).failure()).isEqualTo(m.result().failure());
    }

    @Test
    void faultFreeRunsOfTheBuggyTwinPassSoItIsTheFaultsThatExposeIt() {
        SimOptions calm = OPTIONS.withFaults(java.util.EnumSet.noneOf(io.tandem.sim.FaultKind.class));
        SimRunner.Summary s = SimRunner.run(new BuggyToy(), calm, List.of(1L, 2L, 3L, 4L, 5L), 1, null);
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }
}
