package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CostProfileTest {
    @Test
    void recordsNothingUntilStartedThenCountsAndSumsPerKey() {
        CostProfile p = new CostProfile();
        p.record("n1", "recv message", "Accept", 100);
        assertThat(p.on()).isFalse();
        assertThat(p.entries()).isEmpty();

        p.start();
        p.record("n1", "recv message", "Accept", 100);
        p.record("n1", "recv message", "Accept", 50);
        p.record("n1", "exec", null, 7);
        assertThat(p.entries()).containsExactlyInAnyOrder(
                new CostProfile.Entry(new CostProfile.Key("n1", "recv message", "Accept"), 2, 150),
                new CostProfile.Entry(new CostProfile.Key("n1", "exec", ""), 1, 7));

        p.start(); // a new window forgets the old one
        assertThat(p.entries()).isEmpty();
    }
}
