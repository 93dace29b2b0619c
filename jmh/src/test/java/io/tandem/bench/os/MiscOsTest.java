package io.tandem.bench.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MiscOsTest {
    @Test
    void cpuTicksAreReadAfterTheCommandNameEvenIfItHasSpacesAndParentheses() {
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1234 567 0 0 20 0 30 0 100 0 0";
        assertThat(ProcStat.parseCpuTicks(stat)).isEqualTo(1234 + 567);
        assertThat(ProcStat.parseSystemTicks(stat)).isEqualTo(567);
        assertThatThrownBy(() -> ProcStat.parseCpuTicks("no parens here")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void jitCompilerThreadsAreRecognizedByTheirTruncatedNames() {
        assertThat(ProcStat.isJitThread("C2 CompilerThre")).isTrue();
        assertThat(ProcStat.isJitThread("C1 CompilerThre")).isTrue();
        assertThat(ProcStat.isJitThread("tandem-loop-n1")).isFalse();
    }

    @Test
    void mountFieldsAreUnescaped() {
        assertThat(LoopDisk.unescapeMountField("/var/tmp/a\\040b")).isEqualTo("/var/tmp/a b");
        assertThat(LoopDisk.unescapeMountField("/x\\011y\\134z")).isEqualTo("/x\ty\\z");
        assertThat(LoopDisk.unescapeMountField("/plain\\9")).isEqualTo("/plain\\9");
        assertThat(LoopDisk.unescapeMountField("/end\\04")).isEqualTo("/end\\04");
    }

    @Test
    void cleanupRunsNewestFirstOnceEachAndSurvivesAFailingAction() {
        List<String> ran = new ArrayList<>();
        Cleanup cleanup = new Cleanup();
        cleanup.register("first", () -> ran.add("first"));
        Cleanup.Action second = cleanup.register("second", () -> ran.add("second"));
        cleanup.register("failing", () -> {
            ran.add("failing");
            throw new IllegalStateException("boom");
        });
        cleanup.register("third", () -> ran.add("third"));
        second.run();
        assertThat(cleanup.pending()).isEqualTo(3);
        cleanup.close();
        second.run();
        assertThat(ran).containsExactly("second", "third", "failing", "first");
        assertThat(cleanup.pending()).isZero();
    }
}
