package io.tandem.jmh.psmr;

import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * Mode L of opt-psmr.md §8.2: end to end on loopback. A running KV cluster (any engine, any
 * execution mode; {@code jmh/run-psmr-e2e.sh} starts them) gets {@code clients x window} commands
 * in flight, closed loop: ordered reads (a compare-and-set that changes nothing, which every mode
 * runs on its key's worker without a check) and, for the dependent share, inserts and deletes 50/50
 * on uniform keys, over a tree prefilled with {@code keys} random 8-byte keys out of a space of
 * twice that (random longs, so the server's default uniform partitioning splits them evenly).
 *
 * <p>It reports throughput and client latency over the measured window, and from the members'
 * {@code /metrics} the pass and fail latency of optimistic P-SMR: the runtime sums the latency of
 * the writes answered only after their conservative copy ran (kind {@code write-after-failed-check})
 * apart; the rest of the writes passed (or were never checked). Use it for latency and for the
 * paper's "fail latency about twice the pass latency" (Fig. 3), not for throughput: on 2 cores it is
 * bound by the ordering layer and the clients.
 *
 * <pre>
 * java -cp benchmarks.jar io.tandem.jmh.psmr.EndToEndBench LABEL CLIENT_ENDPOINTS METRICS_URLS KEYS DEP_PCT CLIENTS WINDOW WARMUP_S MEASURE_S CSV
 * </pre>
 */
public final class EndToEndBench {
    private EndToEndBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 10) {
            System.err.println("usage: EndToEndBench LABEL CLIENT_ENDPOINTS METRICS_URLS KEYS DEP_PCT CLIENTS WINDOW WARMUP_S MEASURE_S CSV");
            System.exit(2);
        }
        String label = args[0];
        String[] members = args[1].split(",");
        List<URI> metrics = new ArrayList<>();
        for (String u : args[2].split(",")) metrics.add(URI.create(u));
        int keys = Integer.parseInt(args[3]);
        double dependent = Integer.parseInt(args[4]) / 100.0;
        int clients = Integer.parseInt(args[5]);
        int window = Integer.parseInt(args[6]);
        int warmup = Integer.parseInt(args[7]);
        int measure = Integer.parseInt(args[8]);
        Path csv = Path.of(args[9]);

        long[] space = new long[2 * keys];
        SplittableRandom seed = new SplittableRandom(42);
        for (int i = 0; i < space.length; i++) space[i] = seed.nextLong();
        int inFlight = clients * window;
        KvClientConfig config = KvClientConfig.of(members).withMaxInFlight(inFlight + 64).withRequestTimeout(Duration.ofSeconds(60));
        try (TandemKvClient client = TandemKvClient.connect(config)) {
            prefill(client, space, keys);
            System.err.printf(Locale.ROOT, "prefilled %,d keys%n", keys);

            Recorder latency = new Recorder(3);
            LongAdder done = new LongAdder();
            LongAdder errors = new LongAdder();
            AtomicLong measuring = new AtomicLong(); // 0 warm-up, 1 measured window, 2 over
            long start = System.nanoTime();
            for (int s = 0; s < inFlight; s++) issue(client, space, dependent, latency, done, errors, measuring);
            Thread.sleep(warmup * 1000L); // the load runs on the client's threads; this thread only marks the windows
            Counts before = scrape(metrics);
            long doneBefore = done.sum();
            latency.getIntervalHistogram(); // discard the warm-up
            measuring.set(1);
            long t0 = System.nanoTime();
            Thread.sleep(measure * 1000L);
            measuring.set(2);
            long t1 = System.nanoTime();
            long ops = done.sum() - doneBefore;
            var h = latency.getIntervalHistogram();
            Counts after = scrape(metrics);
            double seconds = (t1 - t0) / 1e9;
            long writes = after.writes - before.writes;
            long failedWrites = after.failedWrites - before.failedWrites;
            double writeSum = after.writeSeconds - before.writeSeconds;
            double failSum = after.failedSeconds - before.failedSeconds;
            double passMeanMs = writes - failedWrites > 0 ? 1000 * (writeSum - failSum) / (writes - failedWrites) : Double.NaN;
            double failMeanMs = failedWrites > 0 ? 1000 * failSum / failedWrites : Double.NaN;
            long checked = after.checked - before.checked;
            long failed = after.failed - before.failed;
            String header = "label,dep_pct,clients,window,keys,measure_s,ops_per_s,p50_ms,p90_ms,p99_ms,max_ms,client_errors,server_writes,writes_after_failed_check,pass_mean_ms,fail_mean_ms,fail_over_pass,checked_all_members,failed_all_members,fail_rate";
            String row = String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%.1f,%.0f,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%.3f,%.3f,%.2f,%d,%d,%.4f",
                    label, Math.round(dependent * 100), clients, window, keys, seconds, ops / seconds, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(90) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0, errors.sum(), writes,
                    failedWrites, passMeanMs, failMeanMs, failMeanMs / passMeanMs, checked, failed, checked > 0 ? (double) failed / checked : 0.0);
            System.out.println(header);
            System.out.println(row);
            if (!Files.exists(csv)) Files.writeString(csv, header + "\n");
            Files.writeString(csv, row + "\n", StandardOpenOption.APPEND);
            System.err.printf(Locale.ROOT, "%s: %.1f s total%n", label, (System.nanoTime() - start) / 1e9);
        }
        System.exit(0); // the load's callbacks may still be pending on the closed client
    }

    private static void prefill(TandemKvClient client, long[] space, int keys) throws InterruptedException {
        Semaphore window = new Semaphore(256);
        List<CompletableFuture<?>> all = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            window.acquire();
            all.add(client.putAsync(key(space[i]), value(i)).whenComplete((r, e) -> window.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    }

    /** One closed-loop slot: a command, and when it is answered, the next, until the window is over. */
    private static void issue(TandemKvClient client, long[] space, double dependent, Recorder latency, LongAdder done, LongAdder errors, AtomicLong measuring) {
        if (measuring.get() == 2) return;
        ThreadLocalRandom r = ThreadLocalRandom.current();
        byte[] k = key(space[r.nextInt(space.length)]);
        CompletableFuture<?> f;
        if (r.nextDouble() >= dependent) f = client.compareAndSetAsync(k, null, null);
        else if (r.nextBoolean()) f = client.putAsync(k, value(r.nextInt()));
        else f = client.deleteAsync(k);
        boolean counted = measuring.get() == 1;
        long t = System.nanoTime();
        f.whenComplete((v, e) -> {
            if (e != null) {
                errors.increment();
            } else if (counted && measuring.get() == 1) {
                latency.recordValue(Math.max(1, (System.nanoTime() - t) / 1000));
            }
            if (e == null) done.increment();
            issue(client, space, dependent, latency, done, errors, measuring);
        });
    }

    private static byte[] key(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    private static byte[] value(int i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    /** Sums over the members' Prometheus text of the counters this benchmark reads. */
    record Counts(long writes, long failedWrites, double writeSeconds, double failedSeconds, long checked, long failed) {
        Counts plus(Counts o) {
            return new Counts(writes + o.writes, failedWrites + o.failedWrites, writeSeconds + o.writeSeconds, failedSeconds + o.failedSeconds,
                    checked + o.checked, failed + o.failed);
        }
    }

    private static Counts scrape(List<URI> members) throws IOException, InterruptedException {
        Counts sum = new Counts(0, 0, 0, 0, 0, 0);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (URI u : members) {
            HttpResponse<InputStream> resp = http.send(HttpRequest.newBuilder(u).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofInputStream());
            String text;
            try (InputStream in = resp.body()) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (resp.statusCode() != 200) throw new IOException(u + " answered " + resp.statusCode());
            sum = sum.plus(parse(text));
        }
        return sum;
    }

    /** The counters of one member's Prometheus text exposition (Micrometer's names: dots to underscores, {@code _total}, base unit). */
    static Counts parse(String text) {
        long writes = 0, failedWrites = 0, checked = 0, failed = 0;
        double writeSeconds = 0, failedSeconds = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) continue;
            double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            boolean write = line.contains("kind=\"write\"");
            boolean afterFail = line.contains("kind=\"write-after-failed-check\"");
            if (line.startsWith("tandem_client_completed_total{")) {
                if (write) writes += (long) v;
                else if (afterFail) failedWrites += (long) v;
            } else if (line.startsWith("tandem_client_latency_sum_seconds_total{")) {
                if (write) writeSeconds += v;
                else if (afterFail) failedSeconds += v;
            } else if (line.startsWith("tandem_execution_checked_total")) {
                checked += (long) v;
            } else if (line.startsWith("tandem_execution_failed_total")) {
                failed += (long) v;
            }
        }
        return new Counts(writes, failedWrites, writeSeconds, failedSeconds, checked, failed);
    }
}
