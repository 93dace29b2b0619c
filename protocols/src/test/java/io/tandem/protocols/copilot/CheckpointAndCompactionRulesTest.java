package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest.Session;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure parts of Copilot's snapshots: the checkpoint record, the session table it carries, and the compaction rules. */
class CheckpointAndCompactionRulesTest {
    private final CopilotRules rules = CopilotRules.STANDARD;

    private static byte[] bytes(ExecutedCommands t) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        t.write(new DataOutputStream(b));
        return b.toByteArray();
    }

    @Test
    void aCheckpointRoundTripsWithItsSessionTableAndAMalformedOneIsRefusedWithAValue() throws Exception {
        ExecutedCommands t = new ExecutedCommands();
        assertThat(t.deliver(0, new Session(7, 1, 1))).isTrue();
        assertThat(t.deliver(1, new Session(7, 1, 1))).isFalse(); // the other pilot's copy
        assertThat(t.deliver(1, new Session(9, 4, 3))).isTrue();
        Checkpoint c = new Checkpoint(12, 5, 3, 9, 4, t);
        Checkpoint back = Checkpoint.decode(c.encode());
        assertThat(List.of(back.deliveredIndex(), back.cursor0(), back.cursor1(), back.highest0(), back.highest1())).containsExactly(12L, 5L, 3L, 9L, 4L);
        assertThat(bytes(back.sessions())).isEqualTo(bytes(t));
        // What the installing replica then decides is what the snapshotting one decides.
        assertThat(back.sessions().orderedIn(0, new Session(7, 1, 1))).isTrue();
        assertThat(back.sessions().orderedIn(1, new Session(7, 1, 1))).isTrue();
        assertThat(back.sessions().deliver(1, new Session(9, 4, 3))).isTrue(); // a retry in the same log
        assertThat(back.sessions().deliver(0, new Session(9, 4, 3))).isFalse();

        byte[] ok = c.encode();
        assertThatThrownBy(() -> Checkpoint.decode(new byte[0])).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no Copilot checkpoint");
        assertThatThrownBy(() -> Checkpoint.decode(Arrays.copyOf(ok, ok.length - 3))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Checkpoint.decode(Arrays.copyOf(ok, ok.length + 1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("after the checkpoint");
        byte[] format = ok.clone();
        format[0] = 9;
        assertThatThrownBy(() -> Checkpoint.decode(format)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("format 9");
        assertThatThrownBy(() -> new Checkpoint(1, 5, 0, 3, 0, t)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("below its cursor");
    }

    @Test
    void aCopyOfTheSessionTableIsIndependent() throws Exception {
        ExecutedCommands t = new ExecutedCommands();
        t.deliver(0, new Session(1, 1, 1));
        ExecutedCommands copy = t.copy();
        t.deliver(0, new Session(1, 2, 1));
        assertThat(copy.executed(new Session(1, 2, 1))).isFalse();
        assertThat(t.executed(new Session(1, 2, 1))).isTrue();
        assertThat(bytes(copy)).isNotEqualTo(bytes(t));
    }

    @Test
    void theSessionTableForgetsWhatTheFloorPassesAndStaysBounded() {
        ExecutedCommands t = new ExecutedCommands();
        for (long seq = 1; seq <= 10; seq++) assertThat(t.deliver(0, new Session(3, seq, 1))).isTrue();
        assertThat(t.size()).isEqualTo(10);
        // The client's low watermark moves to 8: sequences 1..7 are forgotten, both logs included.
        assertThat(t.deliver(1, new Session(3, 11, 8))).isTrue();
        assertThat(t.size()).isEqualTo(4);
        assertThat(t.executed(new Session(3, 5, 5))).isTrue(); // at or below the floor: can never run again
        assertThat(t.delivered(new Session(3, 5, 5))).isFalse();
        assertThat(t.orderedIn(0, new Session(3, 5, 5))).isFalse();
        assertThat(t.deliver(0, new Session(3, 5, 5))).isFalse(); // a copy below the floor is not delivered, even in its own log
        // A client that never raises its watermark is cut at MAX_PER_CLIENT.
        for (long seq = 1; seq <= ExecutedCommands.MAX_PER_CLIENT + 100; seq++) t.deliver(0, new Session(4, seq, 1));
        assertThat(t.size()).isEqualTo(4 + ExecutedCommands.MAX_PER_CLIENT);
    }

    @Test
    void aCompactedOtherLogEntryAboveTheDependencyFailsTheCompatibilityCheck() {
        CopilotRules.Slots none = (log, index) -> null;
        // Nothing known of log 1 beyond slot 9, all of it compacted below 10: a dependency of 9 covers it.
        assertThat(rules.compatible(0, 20, 9, none, 9, 10)).isTrue();
        // A dependency of 5 does not: slots 6..9 ran here and cannot be read any more.
        assertThat(rules.compatible(0, 20, 5, none, 9, 10)).isFalse();
        // Nothing compacted: the ordinary check (nothing processed, pass).
        assertThat(rules.compatible(0, 20, 5, none, 9, 0)).isTrue();
    }

    @Test
    void compactionNeverReachesAboveTheSnapshotNorTheCursorAndKeepsTheRetention() {
        assertThat(rules.compactionPoint(100, 120, 10)).isEqualTo(90);
        assertThat(rules.compactionPoint(100, 120, 0)).isEqualTo(100);
        assertThat(rules.compactionPoint(100, 80, 0)).isEqualTo(80);
        assertThat(rules.compactionPoint(5, 9, 1_000)).isZero();
    }

    @Test
    void theSnapshotSettingsAreValidated() {
        assertThat(CopilotConfig.DEFAULTS.snapshotThreshold()).isEqualTo(10_000);
        assertThat(CopilotConfig.DEFAULTS.logRetentionSlots()).isEqualTo(1_000);
        assertThatThrownBy(() -> CopilotConfig.DEFAULTS.withSnapshots(0, 1, 1)).hasMessageContaining("snapshotThreshold");
        assertThatThrownBy(() -> CopilotConfig.DEFAULTS.withSnapshots(1, -1, 1)).hasMessageContaining("logRetentionSlots");
        assertThatThrownBy(() -> CopilotConfig.DEFAULTS.withSnapshots(1, 0, 0)).hasMessageContaining("snapshotChunkBytes");
        CopilotConfig c = CopilotConfig.DEFAULTS.withSnapshots(4, 0, 8).withPingPong(false);
        assertThat(List.of(c.snapshotThreshold(), c.logRetentionSlots(), (long) c.snapshotChunkBytes())).containsExactly(4L, 0L, 8L);
    }
}
