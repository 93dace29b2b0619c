package io.tandem.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every example runs to its end and does what its README snippet says. */
class ExamplesTest {
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    /** Three consecutive free ports on loopback, starting at the returned one. */
    private static int threeFreePorts() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base;
            try (ServerSocket s = new ServerSocket(0)) {
                base = s.getLocalPort();
            }
            if (base + 2 > 65535) continue;
            try (ServerSocket a = new ServerSocket(base); ServerSocket b = new ServerSocket(base + 1); ServerSocket c = new ServerSocket(base + 2)) {
                return base;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no three consecutive free ports");
    }

    @Test
    void threeMembersOverTcpApplyACommandSubmittedOnEachAndReadWithEveryPolicy(@TempDir Path dir) throws Exception {
        long total = TcpCluster.run(threeFreePorts(), dir, out);
        assertThat(total).isEqualTo(15);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("n3: submitted, total 15, linearizable read 15").contains("lease read 15");
    }

    @Test
    void anInJvmGroupElectsANewLeaderWhenTheOldOneIsIsolated() {
        assertThat(InJvmGroup.run(out)).isEqualTo(2);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("was isolated;").contains("took over; total 2");
    }

    @Test
    void everyChannelMemberReceivesEveryMessageInTheSameOrder() throws Exception {
        Map<String, List<String>> received = ChannelChat.run(out);
        assertThat(received.get("n1")).hasSize(6).contains("n2: hello from n2", "n3: bye from n3");
        assertThat(received.get("n2")).isEqualTo(received.get("n1"));
        assertThat(received.get("n3")).isEqualTo(received.get("n1"));
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("n1 sees view");
    }

    @Test
    void virtualSynchronyChatMembersAgreeOnTheOrderAndOnTheViewWithoutTheMemberThatLeft() throws Exception {
        Map<String, List<String>> received = VirtualSynchronyChat.run(out);
        assertThat(received).containsOnlyKeys("n1", "n2");
        assertThat(received.get("n1")).contains("n1: hello from n1", "n2: hello from n2", "n3: hello from n3", "n1: bye from n1", "n2: bye from n2");
        assertThat(received.get("n2")).isEqualTo(received.get("n1"));
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("n1 sees view [n1|1] [n1, n2, n3]").contains("n2 sees view [n1|2] [n1, n2]");
    }

    @Test
    void aLearnerIsAddedAndPromotedToAVoter() {
        assertThat(Membership.run(out)).extracting(NodeId::value).containsExactlyInAnyOrder("n1", "n2", "n3");
    }
}
