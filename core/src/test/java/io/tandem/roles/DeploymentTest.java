package io.tandem.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.roles.RoleCatalog.RoleSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeploymentTest {
    private static final RoleCatalog PAXOS = new RoleCatalog("multipaxos", List.of(
            new RoleSpec("leader", 1, "proposes values"),
            new RoleSpec("acceptor", 3, "votes"),
            new RoleSpec("replica", 1, "executes the log"),
            new RoleSpec("batcher", 0, "batches commands")));
    private static final List<NodeId> FIVE = List.of("n1", "n2", "n3", "n4", "n5").stream().map(NodeId::of).toList();

    @Test
    void aFileResolvesToWhichMembersRunEachRoleInTheOrderItListsThem() {
        Deployment d = Deployment.parse("""
                # two proposers, acceptors apart from them
                leader   = n2, n1
                acceptor = n3, n4, n5

                replica  = *
                """, "deploy.conf", PAXOS);
        Placement p = d.resolve(FIVE);
        assertThat(p.nodes("leader")).extracting(NodeId::value).containsExactly("n2", "n1");
        assertThat(p.nodes("replica")).isEqualTo(FIVE);
        assertThat(p.nodes("batcher")).isEmpty();
        assertThat(p.rolesOf(NodeId.of("n1"))).containsExactly("leader", "replica");
        assertThat(p.rolesOf(NodeId.of("n4"))).containsExactly("acceptor", "replica");
        assertThat(Deployment.parse(d.toText(), "round trip", PAXOS)).isEqualTo(d);
    }

    @Test
    void everywhereIsEveryRoleOnEveryMember() {
        Placement p = Deployment.everywhere(PAXOS).resolve(FIVE.subList(0, 3));
        assertThat(p.rolesOf(NodeId.of("n3"))).containsExactly("leader", "acceptor", "replica", "batcher");
    }

    @Test
    void aBadRoleNameAMissingRoleAndADuplicatePlacementEachSayWhatAndWhere() {
        assertThatThrownBy(() -> Deployment.parse("leader = n1\nacceptr = n1, n2, n3\nreplica = *\n", "deploy.conf", PAXOS))
                .isInstanceOf(DeploymentException.class)
                .hasMessage("deploy.conf:2: unknown role 'acceptr' for multipaxos; its roles are leader, acceptor, replica, batcher");
        assertThatThrownBy(() -> Deployment.parse("leader = n1\nacceptor = n1, n2, n3\n", "deploy.conf", PAXOS))
                .hasMessage("deploy.conf: no line places role replica, which multipaxos needs on at least 1 member (executes the log)");
        assertThatThrownBy(() -> Deployment.parse("leader = n1\nacceptor = n1, n2, n1\nreplica = *\n", "deploy.conf", PAXOS))
                .hasMessage("deploy.conf:2: n1 is listed twice for role acceptor: two instances of one role must not share a member, one failure would take both");
        assertThatThrownBy(() -> Deployment.parse("leader = n1\nleader = n2\n", "deploy.conf", PAXOS))
                .hasMessage("deploy.conf:2: role leader is placed twice (first on line 1)");
        assertThatThrownBy(() -> Deployment.parse("leader n1\n", "deploy.conf", PAXOS))
                .hasMessage("deploy.conf:1: expected 'role = node, node, ...' (or 'role = *'), got 'leader n1'");
        assertThatThrownBy(() -> Deployment.parse("leader =\n", "deploy.conf", PAXOS)).hasMessageContaining("lists no nodes");
        assertThatThrownBy(() -> Deployment.parse("leader = n1 n2\n", "deploy.conf", PAXOS)).hasMessage("deploy.conf:1: 'n1 n2' is not a member name (in the list of role leader)");
    }

    @Test
    void resolvingRefusesNonMembersTooFewNodesAndMembersWithoutARole() {
        assertThatThrownBy(() -> Deployment.parse("leader = n9\nacceptor = *\nreplica = *\n", "f", PAXOS).resolve(FIVE))
                .hasMessage("role leader (line 1) names n9, which is not a member of the group [n1, n2, n3, n4, n5]");
        assertThatThrownBy(() -> Deployment.parse("leader = n1\nacceptor = n1, n2\nreplica = *\n", "f", PAXOS).resolve(FIVE))
                .hasMessage("role acceptor runs on 2 members, multipaxos needs at least 3 (votes)");
        assertThatThrownBy(() -> Deployment.parse("leader = n1\nacceptor = n1, n2, n3\nreplica = n1\n", "f", PAXOS).resolve(FIVE))
                .hasMessage("n4 is a member but the deployment gives it no role: remove it from the members or place a role on it");
    }

    @Test
    void aMissingFileIsAClearError(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> Deployment.read(dir.resolve("nope.conf"), PAXOS)).isInstanceOf(DeploymentException.class)
                .hasMessageStartingWith("cannot read deployment file " + dir.resolve("nope.conf"));
        Path f = Files.writeString(dir.resolve("d.conf"), "leader = *\nacceptor = *\nreplica = *\n");
        assertThat(Deployment.read(f, PAXOS).resolve(FIVE).nodes("acceptor")).hasSize(5);
    }
}
