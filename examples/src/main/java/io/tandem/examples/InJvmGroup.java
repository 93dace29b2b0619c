package io.tandem.examples;

import io.tandem.api.LocalGroup;
import io.tandem.api.ReplicatedNode;
import io.tandem.protocols.Protocols;
import java.io.PrintStream;
import java.time.Duration;

/**
 * A whole group in one JVM, in one call, as an application's own tests would use it: find the
 * leader, cut it off, watch another member take over, heal.
 */
public final class InJvmGroup {
    private InJvmGroup() {}

    public static void main(String[] args) {
        System.out.println("total " + run(System.out));
    }

    public static long run(PrintStream out) {
        long total;
        // README-BEGIN group
        try (LocalGroup group = LocalGroup.start(3, Protocols.raft(), Counter::new)) {
            ReplicatedNode leader = group.leader(Duration.ofSeconds(10));
            leader.submit(Counter.add(1)).join();
            group.isolate(leader.id().value());                  // cut off both ways: the others elect a new leader
            ReplicatedNode next = group.leader(Duration.ofSeconds(10));   // never an isolated member
            total = Counter.value(next.submit(Counter.add(1)).join());
            group.heal();
            out.printf("%s led, was isolated; %s took over; total %d%n", leader.id(), next.id(), total);
        }
        // README-END group
        return total;
    }
}
