package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.roles.Deployment;
import io.tandem.routing.RoutingPolicy;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The pure parts of the compartments: topologies from deployment files, thrifty write quorums, routing. */
class CompartmentsTopologyTest {
    private static final List<NodeId> NINE = IntStream.rangeClosed(1, 9).mapToObj(i -> NodeId.of("n" + i)).toList();

    private static Topology topology(String text) {
        return Topology.of(Deployment.parse(text, "test.conf", MultiPaxosProtocol.ROLES).resolve(NINE), QuorumLayout.MAJORITY);
    }

    private static List<NodeId> ids(String... names) {
        return java.util.Arrays.stream(names).map(NodeId::of).toList();
    }

    @Test
    void aCompartmentalizedFileGivesProxiesAGridAndBatchers() {
        Topology t = topology("""
                leader = n1, n2
                proxy = n3, n4
                acceptor-row1 = n5, n6
                acceptor-row2 = n7, n8
                replica = n3, n4, n9
                batcher = n3, n4, n9
                """);
        assertThat(t.proxies()).isEqualTo(ids("n3", "n4"));
        assertThat(t.hasProxies()).isTrue();
        assertThat(t.spreadsClients()).isTrue();
        assertThat(t.acceptors()).isEqualTo(ids("n5", "n6", "n7", "n8"));
        assertThat(t.quorums()).isInstanceOf(QuorumSystem.Grid.class);
        assertThat(t.quorums().isReadQuorum(t.quorums().maskOf(ids("n7", "n8")))).isTrue();
        assertThat(t.quorums().isWriteQuorum(t.quorums().maskOf(ids("n5", "n6")))).isFalse();
        assertThat(t.clientMembers()).isEqualTo(ids("n3", "n4", "n9"));
        assertThat(t.frontends()).isEmpty();
    }

    @Test
    void thriftyWriteQuorumsCycleThroughTheColumnsOrConsecutiveMembers() {
        QuorumSystem grid = QuorumSystem.grid(List.of(ids("a1", "a2", "a3"), ids("a4", "a5", "a6")));
        assertThat(grid.writeQuorum(0)).isEqualTo(ids("a1", "a4"));
        assertThat(grid.writeQuorum(2)).isEqualTo(ids("a3", "a6"));
        assertThat(grid.writeQuorum(4)).isEqualTo(ids("a2", "a5"));
        for (int k = 0; k < 6; k++) assertThat(grid.isWriteQuorum(grid.maskOf(grid.writeQuorum(k)))).isTrue();
        QuorumSystem majority = QuorumSystem.majority(ids("a1", "a2", "a3"));
        assertThat(majority.writeQuorum(2)).isEqualTo(ids("a3", "a1"));
        for (int k = -3; k < 6; k++) assertThat(majority.isWriteQuorum(majority.maskOf(majority.writeQuorum(k)))).isTrue();
    }

    @Test
    void badCompartmentFilesAreRefusedWithTheReason() {
        assertThatThrownBy(() -> topology("leader = n1\nacceptor-row2 = n2, n3\nreplica = n1\nfrontend = n1\n" + rest("n4", "n5", "n6", "n7", "n8", "n9")))
                .hasMessageContaining("acceptor-row2 is placed but acceptor-row1 is not");
        assertThatThrownBy(() -> topology("leader = n1\nacceptor = n2, n3, n4\nacceptor-row1 = n5, n6\nreplica = n1\nfrontend = n1\n" + rest("n7", "n8", "n9")))
                .hasMessageContaining("either as 'acceptor' (majorities) or as grid rows");
        assertThatThrownBy(() -> topology("leader = n1\nacceptor-row1 = n2, n3\nacceptor-row2 = n4\nreplica = n1\nfrontend = n1\n" + rest("n5", "n6", "n7", "n8", "n9")))
                .hasMessageContaining("same, non-zero number of acceptors");
        assertThatThrownBy(() -> topology("leader = n1\nacceptor = n2, n3, n4\nreplica = n1\nbatcher = n5\n" + rest("n6", "n7", "n8", "n9")))
                .hasMessageContaining("n5 takes client requests (frontend or batcher) but runs no replica, and no unbatcher brings it the results");
        assertThatThrownBy(() -> topology("leader = n1\nacceptor = n2, n3, n4\nreplica = n1\nfrontend = n1\nbatcher = n1\n" + rest("n5", "n6", "n7", "n8", "n9")))
                .hasMessageContaining("runs both a frontend and a batcher");
        assertThatThrownBy(() -> topology("leader = n1\nreplica = n1\nfrontend = n1\nproxy = " + String.join(", ", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9") + "\n"))
                .hasMessageContaining("no acceptors");
    }

    /** Members left without a role get a proxy, so that the placement uses every member. */
    private static String rest(String... nodes) {
        return "proxy = " + String.join(", ", nodes) + "\n";
    }

    @Test
    void withUnbatchersABatcherMayRunOnAMachineWithoutAReplica() {
        // Spec §2.6/§2.7: unbatchers bring the batcher its clients' results, so it needs no replica of its own.
        Topology t = topology("leader = n1\nacceptor = n2, n3, n4\nreplica = n1, n5\nfrontend = n5\nbatcher = n6, n7\nunbatcher = n8, n9\n");
        assertThat(t.batchers()).isEqualTo(ids("n6", "n7"));
        assertThat(t.clientMembers()).isEqualTo(ids("n5", "n6", "n7"));
        assertThat(t.readingClientMembers()).as("where the batcher machines send readers").isEqualTo(ids("n5"));
    }

    @Test
    void clientsFollowTheLeaderClassicallyAndSpreadOverACompartmentalizedDeployment() {
        assertThat(new MultiPaxosProtocol().routing()).isEqualTo(RoutingPolicy.leader());
        Deployment compartments = Deployment.parse("leader = n1\nproxy = n2\nacceptor = n1, n2, n3\nreplica = n3\nbatcher = n3\n", "c.conf", MultiPaxosProtocol.ROLES);
        assertThat(new MultiPaxosProtocol().withDeployment(compartments).routing()).isEqualTo(RoutingPolicy.anyMember());
        assertThat(MultiPaxosProtocol.CLASSIC.resolve(NINE.subList(0, 3)).nodes("proxy")).isEmpty();
    }
}
