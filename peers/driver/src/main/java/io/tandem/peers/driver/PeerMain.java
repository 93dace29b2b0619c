package io.tandem.peers.driver;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Entry point of every peer jar: {@code replica} runs one replica of a system, {@code load} runs the
 * closed-loop load driver against a cluster of it. The cluster harness ({@code io.tandem.bench.peers} in
 * the jmh module) starts these as separate JVMs with identical JVM settings.
 */
@Command(name = "peer", mixinStandardHelpOptions = true, subcommands = {PeerMain.ReplicaCommand.class, PeerMain.LoadCommand.class},
        description = "Runs a replica of, or load against, one system under test of the peer benchmark.")
public final class PeerMain implements Runnable {

    public static void main(String[] args) {
        System.exit(new CommandLine(new PeerMain()).execute(args));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(new CommandLine(this), "a subcommand is required: replica or load");
    }

    /** The systems on this jar's classpath, by name. */
    static Map<String, PeerSystem> systems() {
        Map<String, PeerSystem> byName = new LinkedHashMap<>();
        for (PeerSystem system : ServiceLoader.load(PeerSystem.class)) byName.put(system.name(), system);
        return byName;
    }

    static PeerSystem system(String name) {
        Map<String, PeerSystem> all = systems();
        PeerSystem system = all.get(name);
        if (system == null) throw new IllegalArgumentException("unknown system '" + name + "'; this jar has " + all.keySet());
        return system;
    }

    static Map<String, String> parseOptions(List<String> pairs) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("--opt takes key=value, got '" + pair + "'");
            options.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return options;
    }

    abstract static class ClusterOptions {
        @Option(names = "--system", required = true, description = "System name, e.g. ratis.") String system;
        @Option(names = "--replicas", defaultValue = "3", description = "Cluster size (default ${DEFAULT-VALUE}).") int replicas;
        @Option(names = "--base-port", defaultValue = "30000", description = "First port of the cluster's port range (default ${DEFAULT-VALUE}).") int basePort;
        @Option(names = "--host", defaultValue = "127.0.0.1") String host;
        @Option(names = "--opt", description = "System-specific option key=value (repeatable).") List<String> opts = new ArrayList<>();

        ClusterLayout layout() {
            return new ClusterLayout(host, replicas, basePort);
        }
    }

    /**
     * Runs one replica until SIGTERM. Prints {@code READY} once the replica runs, then keeps the role file
     * (one word: LEADER, FOLLOWER or OTHER) current, replacing it atomically when the role changes.
     */
    @Command(name = "replica", mixinStandardHelpOptions = true, description = "Runs one replica until SIGTERM.")
    static final class ReplicaCommand extends ClusterOptions implements Callable<Integer> {
        @Option(names = "--id", required = true, description = "Replica index, 0-based.") int id;
        @Option(names = "--data", required = true, description = "Data directory of this replica (created if missing).") Path data;
        @Option(names = "--fsync", arity = "1", defaultValue = "true", description = "Acknowledge only after fsync (default ${DEFAULT-VALUE}).") boolean fsync;
        @Option(names = "--role-file", description = "Where to keep the current role (default <data>.role).") Path roleFile;

        @Override
        public Integer call() throws Exception {
            Files.createDirectories(data);
            Path roles = roleFile != null ? roleFile : data.resolveSibling(data.getFileName() + ".role");
            ReplicaConfig config = new ReplicaConfig(id, layout(), data, fsync, parseOptions(opts));
            Replica replica = system(system).startReplica(config);
            CountDownLatch stopped = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("replica-stop").unstarted(() -> {
                stopped.countDown();
                try {
                    replica.close();
                } catch (Exception e) {
                    System.err.println("replica " + id + ": close failed: " + e);
                } finally {
                    closed.countDown();
                }
            }));
            System.out.println("READY " + system + " replica " + id);
            System.out.flush();
            Role written = null;
            while (!stopped.await(100, TimeUnit.MILLISECONDS)) {
                Role now = replica.role();
                if (now != written) {
                    writeAtomically(roles, now.name());
                    written = now;
                }
            }
            closed.await(30, TimeUnit.SECONDS);
            return 0;
        }
    }

    static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Runs the closed-loop load for {@code --seconds} and writes one timeline row per second:
     * {@code second,epoch_ms,ops,errors,outstanding,histogram}, where {@code histogram} is the second's
     * latency histogram (µs) in HdrHistogram's compressed encoding, Base64, so the harness can merge any
     * window of seconds exactly. A human-readable line per second goes to stdout.
     */
    @Command(name = "load", mixinStandardHelpOptions = true, description = "Runs closed-loop puts against a running cluster.")
    static final class LoadCommand extends ClusterOptions implements Callable<Integer> {
        @Option(names = "--clients", defaultValue = "16", description = "Closed-loop clients (default ${DEFAULT-VALUE}).") int clients;
        @Option(names = "--keys", defaultValue = "10000", description = "Key space (default ${DEFAULT-VALUE}).") int keys;
        @Option(names = "--value-size", defaultValue = "64", description = "Value bytes (default ${DEFAULT-VALUE}).") int valueSize;
        @Option(names = "--seconds", defaultValue = "30", description = "How long to run (default ${DEFAULT-VALUE}).") int seconds;
        @Option(names = "--seed", defaultValue = "1") long seed;
        @Option(names = "--connect-timeout", defaultValue = "60", description = "Seconds to keep trying to connect (default ${DEFAULT-VALUE}).") int connectTimeout;
        @Option(names = "--timeline", required = true, description = "CSV file to write.") Path timeline;

        @Override
        public Integer call() throws Exception {
            if (seconds < 1) throw new IllegalArgumentException("--seconds must be >= 1");
            PeerSystem target = system(system);
            PeerClient client = connectWithRetry(target, new ClientConfig(layout(), clients, parseOptions(opts)), connectTimeout);
            try (client; ClosedLoopDriver driver = new ClosedLoopDriver(client, clients, keys, valueSize, seed);
                 PrintWriter out = new PrintWriter(Files.newBufferedWriter(timeline, StandardCharsets.UTF_8))) {
                out.println("second,epoch_ms,ops,errors,outstanding,histogram");
                driver.intervalHistogram();
                driver.start();
                long startNanos = System.nanoTime();
                long previousErrors = 0;
                for (int second = 1; second <= seconds; second++) {
                    long due = startNanos + TimeUnit.SECONDS.toNanos(second);
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) TimeUnit.NANOSECONDS.sleep(wait); // pacing the sampler, not waiting for a condition
                    Histogram h = driver.intervalHistogram();
                    long errors = driver.errors();
                    out.printf("%d,%d,%d,%d,%d,%s%n", second, System.currentTimeMillis(), h.getTotalCount(), errors - previousErrors,
                            driver.outstanding(), encode(h));
                    out.flush();
                    System.out.printf("t=%ds ops=%d p50=%dus p99=%dus errors=%d%s%n", second, h.getTotalCount(),
                            h.getValueAtPercentile(50), h.getValueAtPercentile(99), errors - previousErrors,
                            errors > previousErrors && driver.lastError() != null ? " last=" + driver.lastError() : "");
                    previousErrors = errors;
                }
            }
            return 0;
        }
    }

    static PeerClient connectWithRetry(PeerSystem system, ClientConfig config, int timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            try {
                return system.connect(config);
            } catch (Exception e) {
                if (System.nanoTime() > deadline) throw new IOException("could not connect to " + system.name() + " within " + timeoutSeconds + " s", e);
                TimeUnit.MILLISECONDS.sleep(200); // back-off between connection attempts
            }
        }
    }

    /** A histogram in HdrHistogram's compressed encoding, Base64. */
    public static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
    }

    private static final long DECODE_RANGE_MICROS = TimeUnit.HOURS.toMicros(1);

    /** The inverse of {@link #encode}. */
    public static Histogram decode(String base64) {
        try {
            // The recorder's interval histograms auto-resize, and the range in their header can be smaller than
            // the counts they carry; decoding with a floor of one hour (in µs) sizes the result for any latency.
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), DECODE_RANGE_MICROS);
        } catch (java.util.zip.DataFormatException e) {
            throw new IllegalArgumentException("not an encoded histogram", e);
        }
    }
}
