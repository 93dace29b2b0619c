package io.tandem.bench.sim;

import io.tandem.codec.CodecIds;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.protocols.Protocols;
import io.tandem.sim.SimBench;
import io.tandem.sim.SimTime;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportListener;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.TcpTransport;
import io.tandem.transport.tcp.TcpTransportConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Two measurements behind the leader's per-command cost with proxy leaders (issue 21, compart10;
 * docs/compartments-scaling.md), in the calibration's own terms ({@link CostCalibration}):
 *
 * <ul>
 *   <li>{@code handlers FILE NODES CLIENTS TABLE [KEY=VALUE...]}: the wall time of every real engine handler, per
 *       message type, while a deployment runs in the simulator (the calibration times them on the classic
 *       deployments only, so {@code Propose}, {@code ProxyAccept}, {@code Decided} fall to
 *       {@code loop.message.default.ns}); p10, median and p90 of a second run (the first warms the JIT up), from the 2,000th {@code Chosen} on;</li>
 *   <li>{@code transport BASEPORT [N]} (ports BASEPORT and BASEPORT+1): the real TCP transport's CPU per 64-byte message (both I/O threads, codec included, the
 *       sending thread excluded, as the calibration) when messages come in bursts of k with a pause between bursts
 *       (each burst one or a few flushes and reads), so the per-turn and the per-frame parts can be told apart; k =
 *       256 window is the calibration's own streaming method.</li>
 * </ul>
 */
public final class HotPathProbe {
    private HotPathProbe() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "handlers" -> handlers(args);
            case "transport" -> transport(Integer.parseInt(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 100_000);
            default -> throw new IllegalArgumentException("handlers FILE NODES CLIENTS TABLE [KEY=VALUE...] | transport BASEPORT [N]");
        }
    }

    // ---- handlers ----

    private static void handlers(String[] args) throws Exception {
        String file = args[1];
        int nodes = Integer.parseInt(args[2]);
        int clients = Integer.parseInt(args[3]);
        CostTable table = CostTable.read(Path.of(args[4]));
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 5; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            options.put(kv[0], kv[1]);
        }
        Protocol p = Protocols.byName("multipaxos").withEngineOptions(options);
        if (!"classic".equals(file)) p = p.withDeployment(io.tandem.roles.Deployment.read(Path.of(file), p.roles().orElseThrow()));
        Map<String, List<Long>> samples = new TreeMap<>();
        for (int round = 0; round < 2; round++) {
            boolean record = round == 1; // the first round warms the JIT up
            SimBench.Config c = new SimBench.Config(nodes, clients, 10_000, SimTime.millis(10), 0, SimTime.millis(record ? 20 : 10), 1 + round,
                    CostModel.Resources.dedicated(1), List.of());
            long t0 = System.nanoTime();
            long[] chosen = {0};
            SimBench.Result r = SimBench.run(p, c, table, (kind, type, bytes, wall) -> {
                // Only once commands flow (a leader is known and 2,000 Chosen were handled): before that, frontends'
                // Proposes to a member that does not lead are rejected at once and retried, and would swamp the
                // medians with the cheap rejection path.
                if ("Chosen".equals(type)) chosen[0]++;
                if (!record || chosen[0] < 2_000) return;
                samples.computeIfAbsent("message".equals(kind) ? type : kind, k -> new ArrayList<>()).add(wall);
            });
            System.out.printf(Locale.ROOT, "round %d: %.0f ops/s (model), wall %.1f s%n", round, r.throughput(), (System.nanoTime() - t0) / 1e9);
        }
        System.out.printf(Locale.ROOT, "%-22s %9s %8s %8s %8s%n", "handler", "samples", "p10_ns", "p50_ns", "p90_ns");
        for (Map.Entry<String, List<Long>> e : samples.entrySet()) {
            long[] s = e.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
            if (s.length < 50) continue;
            System.out.printf(Locale.ROOT, "%-22s %9d %8d %8d %8d%n", e.getKey(), s.length, s[s.length / 10], s[s.length / 2], s[s.length * 9 / 10]);
        }
    }

    // ---- transport ----

    /** A 64-byte probe message (the calibration's {@link CostCalibration.Probe}). */
    private static KryoCodec codec() {
        KryoCodec.Builder b = KryoCodec.builder();
        b.register(CostCalibration.Probe.class, CodecIds.TEST_FIRST);
        return b.build();
    }

    private static void transport(int basePort, int n) throws Exception {
        NodeId a = NodeId.of("n1");
        NodeId b = NodeId.of("n2");
        Map<NodeId, Endpoint> members = Map.of(a, new Endpoint("127.0.0.1", basePort), b, new Endpoint("127.0.0.1", basePort + 1));
        TcpTransportConfig config = TcpTransportConfig.defaults().withIoThreads(1);
        TcpTransport sender = new TcpTransport(new TransportSetup("probe", a, members, codec(), new SimpleMeterRegistry()), config);
        TcpTransport receiver = new TcpTransport(new TransportSetup("probe", b, members, codec(), new SimpleMeterRegistry()), config);
        AtomicLong delivered = new AtomicLong();
        Thread main = Thread.currentThread();
        AtomicLong waitFor = new AtomicLong(Long.MAX_VALUE);
        receiver.start(new TransportListener() {
            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {
                // Wake the sender only when the burst is complete, so the receiving side pays one unpark per burst.
                if (delivered.incrementAndGet() >= waitFor.get()) LockSupport.unpark(main);
            }
        });
        sender.start((from, message) -> {});
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(sender.isConnected(b) && receiver.isConnected(a))) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("transports did not connect");
                Thread.sleep(10);
            }
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            byte[] payload = new byte[64];
            int[] bursts = {1, 2, 4, 8, 16, 64, -256};
            System.out.printf(Locale.ROOT, "%-10s %12s %14s%n", "burst", "messages", "cpu_ns_per_msg");
            for (int round = 0; round < 2; round++) {
                for (int k : bursts) {
                    long base = delivered.get();
                    long p0 = os.getProcessCpuTime();
                    long s0 = threads.getCurrentThreadCpuTime();
                    if (k < 0) { // the calibration's method: a window of |k| unanswered messages, sent as fast as they go
                        waitFor.set(Long.MAX_VALUE);
                        for (int i = 1; i <= n; i++) {
                            while (i - (delivered.get() - base) > -k) LockSupport.parkNanos(50_000);
                            if (!sender.send(b, new CostCalibration.Probe(i, false, payload))) throw new IllegalStateException("send dropped");
                        }
                        while (delivered.get() - base < n) LockSupport.parkNanos(50_000);
                    } else {
                        int sent = 0;
                        while (sent < n) {
                            waitFor.set(base + sent + k);
                            for (int j = 0; j < k; j++) {
                                if (!sender.send(b, new CostCalibration.Probe(sent + j, false, payload))) throw new IllegalStateException("send dropped");
                            }
                            sent += k;
                            while (delivered.get() - base < sent) LockSupport.park();
                        }
                    }
                    long s1 = threads.getCurrentThreadCpuTime();
                    long p1 = os.getProcessCpuTime();
                    long msgs = delivered.get() - base;
                    if (round == 1) {
                        System.out.printf(Locale.ROOT, "%-10s %12d %14.0f%n", k < 0 ? "window" + -k : Integer.toString(k), msgs, ((p1 - p0) - (s1 - s0)) / (double) msgs);
                    }
                }
            }
        } finally {
            sender.close();
            receiver.close();
        }
    }
}
