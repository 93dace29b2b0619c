package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MinorityFaultModelTest {
    private static List<NodeId> nodes(int n) {
        List<NodeId> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) out.add(NodeId.of("n" + i));
        return out;
    }

    /** Replays a schedule and returns, at each event, how many members are crashed, paused or cut off. */
    private static List<Integer> outAfterEachEvent(FaultSchedule s, List<NodeId> members) {
        Set<NodeId> crashed = new HashSet<>();
        Set<NodeId> paused = new HashSet<>();
        java.util.Map<NodeId, Integer> blockedFrom = new java.util.HashMap<>();
        List<Integer> out = new ArrayList<>();
        for (Fault.Scheduled e : s.events()) {
            switch (e.fault()) {
                case Fault.Crash c -> crashed.add(c.node());
                case Fault.Restart r -> crashed.remove(r.node());
                case Fault.Pause p -> paused.add(p.node());
                case Fault.Resume r -> paused.remove(r.node());
                case Fault.Partition p -> p.blocked().forEach(l -> blockedFrom.merge(l.from(), 1, Integer::sum));
                case Fault.Heal h -> blockedFrom.clear();
                default -> { }
            }
            Set<NodeId> all = new HashSet<>(crashed);
            all.addAll(paused);
            // Cut off: a member that reaches no majority (itself included).
            for (NodeId m : members) if (members.size() - blockedFrom.getOrDefault(m, 0) <= members.size() / 2) all.add(m);
            out.add(all.size());
        }
        return out;
    }

    @Test
    void episodesComeOneAtATimeAndTouchAMinorityOnly() {
        for (int n : List.of(3, 5)) {
            List<NodeId> members = nodes(n);
            for (long seed = 1; seed <= 300; seed++) {
                SimOptions o = SimOptions.defaults().toBuilder().faultsPerSecond(3).build();
                FaultSchedule s = new MinorityFaultModel(SimTime.millis(200), seed % 2 == 0 ? SimTime.millis(50) : 0).generate(new SplittableRandom(seed), o, members);
                for (int out : outAfterEachEvent(s, members)) assertThat(out).as("seed %d n=%d: %s", seed, n, s.format()).isLessThanOrEqualTo((n - 1) / 2);
                int open = 0;
                for (Fault.Scheduled e : s.events()) {
                    switch (e.fault()) {
                        case Fault.Partition p -> {
                            assertThat(p.shape()).isEqualTo("isolate");
                            open++;
                        }
                        case Fault.Heal h -> open--;
                        case Fault.Slow sl -> throw new AssertionError("slow members are outside the model: " + s.format());
                        case Fault.SlowLink sl -> throw new AssertionError("slow links are outside the model: " + s.format());
                        default -> { }
                    }
                    assertThat(open).isBetween(0, 1);
                }
            }
        }
    }

    @Test
    void aSupervisorRestartsWhatAPauseOrACutMayHaveStopped() {
        SimOptions o = SimOptions.defaults().toBuilder().faults(EnumSet.of(FaultKind.PAUSE)).faultsPerSecond(2).build();
        FaultSchedule s = new MinorityFaultModel(SimTime.millis(100), SimTime.millis(50)).generate(new SplittableRandom(7), o, nodes(3));
        List<Fault.Scheduled> ev = s.events();
        assertThat(ev).isNotEmpty();
        for (int i = 0; i < ev.size(); i++) {
            if (ev.get(i).fault() instanceof Fault.Resume r && i + 1 < ev.size()) {
                // The supervisor names no member: it restarts whichever stopped (Fault.Supervise).
                assertThat(ev.get(i + 1).fault()).isEqualTo(new Fault.Supervise());
                assertThat(ev.get(i + 1).atNanos() - ev.get(i).atNanos()).isEqualTo(SimTime.millis(50));
            }
        }
    }

    @Test
    void theSupervisorsEventReadsBackFromItsText() {
        assertThat(Fault.parse(Fault.format(new Fault.Supervise()))).isEqualTo(new Fault.Supervise());
    }

    @Test
    void theSameSeedGivesTheSameSchedule() {
        SimOptions o = SimOptions.defaults();
        MinorityFaultModel m = new MinorityFaultModel(SimTime.millis(300), 0);
        assertThat(m.generate(new SplittableRandom(42), o, nodes(5)).format()).isEqualTo(m.generate(new SplittableRandom(42), o, nodes(5)).format());
    }
}
