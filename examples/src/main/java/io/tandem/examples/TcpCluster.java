package io.tandem.examples;

import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.engine.ReadPolicy;
import io.tandem.protocols.Protocols;
import io.tandem.transport.tcp.TcpTransport;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Three members of a Raft group over TCP on three local ports, in one JVM for the example (in
 * production each is its own process, with the same member list): a command submitted on every
 * member, then a read with each read policy.
 */
public final class TcpCluster {
    private TcpCluster() {}

    public static void main(String[] args) throws Exception {
        int base = args.length > 0 ? Integer.parseInt(args[0]) : 7101;
        System.out.println("total " + run(base, Files.createTempDirectory("tandem-example"), System.out));
    }

    /** Runs the example with peer ports {@code base..base+2} and data under {@code dataDir}; answers the final total. */
    public static long run(int base, Path dataDir, PrintStream out) {
        String[] members = {"n1=127.0.0.1:" + base, "n2=127.0.0.1:" + (base + 1), "n3=127.0.0.1:" + (base + 2)};
        List<ReplicatedNode> nodes = new ArrayList<>();
        try {
            for (String id : List.of("n1", "n2", "n3")) {
                // README-BEGIN node
                ReplicatedNode node = Tandem.node()
                        .id(id).members(members)                  // "n1=127.0.0.1:7101", ... the same list on every member
                        .protocol(Protocols.raft())               // or Protocols.multiPaxos(), ...
                        .transport(TcpTransport.defaults())
                        .dataDir(dataDir.resolve(id))             // durable; .inMemoryStorage() for tests
                        .stateMachine(new Counter())              // your deterministic StateMachine
                        .start();
                // README-END node
                nodes.add(node);
            }
            long total = 0;
            for (ReplicatedNode node : nodes) {
                // README-BEGIN submit
                node.awaitReady(Duration.ofSeconds(30)).join();              // a leader is known
                byte[] result = node.submit(Counter.add(5)).join();          // on any member: forwarded to the leader
                byte[] read = node.query(new byte[0], ReadPolicy.LINEARIZABLE).join(); // or LEASE, ReadPolicy.stale(minIndex)
                // README-END submit
                total = Counter.value(result);
                out.printf("%s: submitted, total %d, linearizable read %d%n", node.id(), total, Counter.value(read));
            }
            ReplicatedNode any = nodes.getFirst();
            out.printf("lease read %d, stale read (at least index %d) %d%n", Counter.value(any.query(new byte[0], ReadPolicy.LEASE).join()),
                    any.appliedIndex(), Counter.value(any.query(new byte[0], ReadPolicy.stale(any.appliedIndex())).join()));
            return total;
        } finally {
            nodes.forEach(ReplicatedNode::close);
        }
    }
}
