package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ReadPolicy;
import org.junit.jupiter.api.Test;

class BasicReplicationTest {
    @Test
    void threeNodesElectALeaderAndCommitWrites() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 1);
        RaftEngine leader = c.awaitLeader();
        for (int i = 0; i < 20; i++) c.writeCommitted();
        var read = c.read(leader.self(), ReadPolicy.LINEARIZABLE);
        assertThat(c.await(read, 1000 * MS)).isTrue();
        assertThat(read.value).isEqualTo(20);
        c.runFor(500 * MS);
        c.checkLogMatching();
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }
}
