package io.tandem.protocols.perf;

import io.tandem.protocols.Protocols;
import io.tandem.sim.SimBench;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Slowdown;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimBenchSmokeTest {
    static final CostTable TABLE = CostTable.of(Map.ofEntries(
            Map.entry("loop.default.ns", "3000"), Map.entry("loop.message.default.ns", "5000"), Map.entry("loop.client-request.ns", "4000"),
            Map.entry("transport.send.ns", "8000"), Map.entry("transport.receive.ns", "8000"), Map.entry("codec.encode.ns", "1000"),
            Map.entry("codec.decode.ns", "1000"), Map.entry("client.request.ns", "10000"), Map.entry("client.reply.ns", "8000"),
            Map.entry("client.op.ns", "20000"), Map.entry("apply.ns", "5000"), Map.entry("workload.commandBytes", "100"),
            Map.entry("disk.fsync", "0:500000,0.5:1000000,0.99:3000000,1:5000000"), Map.entry("disk.bytesPerSecond", "200000000"),
            Map.entry("net.oneway", "0:20000,0.5:30000,1:100000")));

    @Test
    void smoke() {
        for (String slow : new String[] {null, "follower:cpu=5%", "follower:net=+400ms", "follower:disk=512KiB/s", "follower:pause=500ms/1s", "follower:stop"}) {
            SimBench.Config c = SimBench.Config.of(3, 16).withSlow(slow == null ? List.of() : List.of(Slowdown.parse(slow)));
            SimBench.Result r = SimBench.run(Protocols.byName(System.getProperty("proto", "raft")), c, TABLE);
            System.out.printf("%-28s ops=%d thr=%.0f mean=%.0f p50=%.0f p99=%.0f max=%.0f leader=%s slow=%s q=%d/%d/%d inflight=%d cpu=%.2f lc=%d retries=%d events=%d wall=%.1fs%n",
                    r.slowText(), r.ops(), r.throughput(), r.meanMicros(), r.p50Micros(), r.p99Micros(), r.maxMicros(), r.leader(), r.slowNodes(),
                    r.leaderQueueStart(), r.leaderQueueMax(), r.leaderQueueEnd(), r.leaderInFlightMax(), r.leaderCpu(), r.leaderChanges(), r.retries(), r.events(), r.wallNanos() / 1e9);
        }
    }
}
