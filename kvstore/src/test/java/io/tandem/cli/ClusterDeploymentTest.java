package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A deployment file given to the local cluster is checked before any process starts. */
class ClusterDeploymentTest {
    private record Run(int exit, String err) {}

    private static Run cluster(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 1];
        all[0] = "cluster";
        System.arraycopy(args, 0, all, 1, args.length);
        return new Run(cli.execute(all), err.toString());
    }

    @Test
    void aBadFileAProtocolWithoutRolesAndANonMemberAreRefusedWithTheReasonAndNothingStarts(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("c");
        Path bad = Files.writeString(tmp.resolve("bad.conf"), "leader = n1\nacceptr = *\n");
        Run r = cluster("--dir", dir.toString(), "--protocol", "multipaxos", "--deployment", bad.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("tandem cluster: --deployment: " + bad + ":2: unknown role 'acceptr' for multipaxos");

        Path good = Files.writeString(tmp.resolve("good.conf"), "leader = n1, n2\nacceptor = *\nreplica = *\nfrontend = n1, n2\n");
        r = cluster("--dir", dir.toString(), "--protocol", "raft", "--deployment", good.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("raft runs one engine per member and takes no deployment file");

        Path five = Files.writeString(tmp.resolve("five.conf"), "leader = n1\nacceptor = n1, n2, n5\nreplica = *\nfrontend = *\n");
        r = cluster("--dir", dir.toString(), "--protocol", "multipaxos", "--deployment", five.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("role acceptor (line 2) names n5, which is not a member of the group [n1, n2, n3]");
        assertThat(dir).doesNotExist();
    }

    @Test
    void theProtocolsOwnRulesAreCheckedBeforeAnythingStarts(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("c");
        Path batcherApart = Files.writeString(tmp.resolve("apart.conf"), "leader = n1\nproxy = n2\nacceptor = *\nreplica = n1, n2\nbatcher = n3\n");
        Run r = cluster("--dir", dir.toString(), "--protocol", "multipaxos", "--deployment", batcherApart.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("n3 takes client requests (frontend or batcher) but runs no replica");
        assertThat(dir).doesNotExist();
    }

    @Test
    void theShippedExampleDeploymentsAreValidForTheClusterSizeTheyName() throws Exception {
        try (var files = Files.list(Path.of("deployments"))) {
            List<Path> all = files.filter(f -> f.toString().endsWith(".conf")).sorted().toList();
            assertThat(all).isNotEmpty();
            for (Path f : all) {
                // The members are n1..nK for the highest K the file names (a local cluster of K nodes).
                int k = java.util.regex.Pattern.compile("\\bn(\\d+)\\b").matcher(Files.readString(f)).results()
                        .mapToInt(m -> Integer.parseInt(m.group(1))).max().orElseThrow();
                List<io.tandem.engine.NodeId> members = java.util.stream.IntStream.rangeClosed(1, k).mapToObj(i -> io.tandem.engine.NodeId.of("n" + i)).toList();
                var protocol = io.tandem.protocols.Protocols.byName("multipaxos");
                var d = io.tandem.roles.Deployment.read(f, protocol.roles().orElseThrow());
                for (var n : members) assertThat(protocol.withDeployment(d).createEngine(n, members)).as("%s on %s", f, n).isNotNull();
            }
        }
    }
}
