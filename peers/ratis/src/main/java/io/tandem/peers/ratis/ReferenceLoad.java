package io.tandem.peers.ratis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;

/**
 * The reference number for the Ratis adapter (issue 25): Ratis driven the way its own examples drive it
 * ({@code ratis-examples}, {@code counter.server.CounterServer} and {@code counter.client.CounterClient}), with
 * nothing of the benchmark's driver or adapter in between. Not used by the benchmark.
 *
 * <ul>
 *   <li>{@code server ID BASE_PORT DIR [FSYNC]}: one server as {@code CounterServer} builds it: {@code new RaftProperties()}
 *       with only the storage directory and the gRPC port set (Ratis' defaults otherwise: gRPC, fsync on, 150-300 ms
 *       election timeout; {@code FSYNC} false sets {@code raft.server.log.unsafe-flush.enabled}, the adapter's fsync-off
 *       mapping), the group of the three servers on {@code 127.0.0.1:BASE_PORT+20*i}, and the benchmark's
 *       {@link MapStateMachine} (the same per-entry work as the adapter's replicas). Runs until killed.</li>
 *   <li>{@code client BASE_PORT WRITERS SECONDS MEASURED VALUE_SIZE [io|async] [PID...]}: {@code WRITERS}
 *       concurrent writers, each with a {@link RaftClient} of its own built as {@code CounterClient.newClient()}
 *       builds it (default properties, default retry policy), each with one put outstanding: {@code io} is
 *       {@code CounterClient}'s IO mode (one thread per writer, {@code client.io().send}), {@code async} chains
 *       {@code client.async().send} on the reply. Prints puts per second, then the last {@code MEASURED} seconds'
 *       throughput, p50/p99 and, when the servers' PIDs are given, the CPU of those processes plus this one per put.</li>
 * </ul>
 */
public final class ReferenceLoad {
    private ReferenceLoad() {}

    static RaftGroup group(int basePort) {
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(RaftPeer.newBuilder().setId(RatisSystem.peerId(i)).setAddress("127.0.0.1:" + (basePort + 20 * i)).build());
        }
        return RaftGroup.valueOf(RatisSystem.GROUP_ID, peers);
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("server")) {
            server(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Path.of(args[3]), args.length < 5 || Boolean.parseBoolean(args[4]));
        } else if (args.length > 5 && args[0].equals("client")) {
            List<Long> pids = new ArrayList<>();
            for (int i = 7; i < args.length; i++) pids.add(Long.parseLong(args[i]));
            client(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), args.length > 6 ? args[6] : "io", pids);
        } else {
            System.err.println("usage: server ID BASE_PORT DIR [FSYNC] | client BASE_PORT WRITERS SECONDS MEASURED VALUE_SIZE [io|async] [PID...]");
            System.exit(2);
        }
    }

    static void server(int id, int basePort, Path dir, boolean fsync) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        RaftProperties properties = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(properties, List.of(dir.toFile()));
        if (!fsync) RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, true); // the benchmark's fsync-off mapping
        GrpcConfigKeys.Server.setPort(properties, basePort + 20 * id);
        RaftServer server = RaftServer.newBuilder()
                .setGroup(group(basePort))
                .setProperties(properties)
                .setServerId(RatisSystem.peerId(id))
                .setStateMachine(new MapStateMachine())
                .setOption(isEmpty(dir.toFile()) ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER)
                .build();
        server.start();
        System.out.println("READY " + id);
        new CountDownLatch(1).await(); // until killed, as CounterServer waits for a line on stdin
    }

    private static boolean isEmpty(File dir) {
        String[] names = dir.list();
        return names == null || names.length == 0;
    }

    static void client(int basePort, int writers, int seconds, int measured, int valueSize, String mode, List<Long> pids) throws Exception {
        RaftGroup group = group(basePort);
        Recorder latencies = new Recorder(3);
        AtomicLong puts = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        List<RaftClient> clients = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            clients.add(RaftClient.newBuilder().setProperties(new RaftProperties()).setRaftGroup(group).build());
        }
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            RaftClient client = clients.get(w);
            SplittableRandom random = new SplittableRandom(w);
            byte[] value = new byte[valueSize];
            random.nextBytes(value);
            switch (mode) {
                case "io" -> {
                    Thread t = Thread.ofPlatform().name("writer-" + w).start(() -> {
                        while (running.get()) {
                            long start = System.nanoTime();
                            try {
                                RaftClientReply reply = client.io().send(message(random, value));
                                if (reply.isSuccess()) {
                                    latencies.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                                    puts.incrementAndGet();
                                } else {
                                    errors.incrementAndGet();
                                }
                            } catch (IOException e) {
                                errors.incrementAndGet();
                            }
                        }
                    });
                    threads.add(t);
                }
                case "async" -> new AsyncWriter(client, random, value, running, latencies, puts, errors).next();
                default -> throw new IllegalArgumentException("mode must be io or async, got " + mode);
            }
        }
        Histogram window = null;
        long cpuStart = 0, putsStart = 0, windowStart = 0;
        long last = 0;
        latencies.getIntervalHistogram();
        for (int s = 1; s <= seconds; s++) {
            Thread.sleep(1000);
            long now = puts.get();
            Histogram second = latencies.getIntervalHistogram();
            System.out.printf("t=%ds puts=%d p50=%dus p99=%dus errors=%d%n", s, now - last, second.getValueAtPercentile(50),
                    second.getValueAtPercentile(99), errors.get());
            last = now;
            if (s == seconds - measured) {
                window = new Histogram(3);
                cpuStart = cpuTicks(pids);
                putsStart = now;
                windowStart = System.nanoTime();
            } else if (window != null) {
                window.add(second);
            }
        }
        if (window != null) {
            long n = puts.get() - putsStart;
            double secs = (System.nanoTime() - windowStart) / 1e9;
            long cpu = cpuTicks(pids) - cpuStart;
            System.out.printf("RESULT mode=%s writers=%d value=%d measured=%.1fs puts/s=%.0f p50_us=%d p99_us=%d errors=%d cpu_us_per_put=%s%n",
                    mode, writers, valueSize, secs, n / secs, window.getValueAtPercentile(50), window.getValueAtPercentile(99), errors.get(),
                    pids.isEmpty() ? "n/a" : String.format("%.1f", cpu * 10_000.0 / Math.max(1, n)));
        }
        running.set(false);
        System.out.flush();
        Runtime.getRuntime().halt(0); // the writers' threads and Ratis' clients need not be closed for a measurement
    }

    static Message message(SplittableRandom random, byte[] value) {
        value[random.nextInt(value.length)] ^= 1;
        return Message.valueOf(PutCodec.encode(("key" + random.nextInt(10_000)).getBytes(), value));
    }

    /** {@code utime + stime} in clock ticks (100 Hz) of the given processes and this one. */
    static long cpuTicks(List<Long> pids) throws IOException {
        long ticks = 0;
        List<Long> all = new ArrayList<>(pids);
        all.add(ProcessHandle.current().pid());
        for (long pid : all) {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        }
        return ticks;
    }

    /** One writer of the async mode: the next put is sent when the previous one is answered. */
    private record AsyncWriter(RaftClient client, SplittableRandom random, byte[] value, AtomicBoolean running, Recorder latencies, AtomicLong puts,
                               AtomicLong errors) {
        void next() {
            if (!running.get()) return;
            long start = System.nanoTime();
            client.async().send(message(random, value)).whenComplete((reply, failure) -> {
                if (failure == null && reply.isSuccess()) {
                    latencies.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                    puts.incrementAndGet();
                } else {
                    errors.incrementAndGet();
                }
                next();
            });
        }
    }
}
