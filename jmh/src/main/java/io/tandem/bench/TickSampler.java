package io.tandem.bench;

import io.tandem.bench.report.PrometheusText;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Cuts the run into one-second ticks: at the end of each it takes the latencies recorded during the
 * tick and scrapes the leader's Prometheus endpoint, so client latency, leader heap, resends and
 * warnings share one time axis. Tick {@code i} covers seconds {@code [i, i+1)} after the load
 * started.
 */
final class TickSampler implements AutoCloseable {
    /** What the leader's metrics said at the end of a tick. */
    record LeaderSample(double heapUsedBytes, double resends, Map<String, Double> warningsByKind, double backgroundMessages,
                        double commitOverdue, double term, double quorumWaits, double quorumWaitNanos) {
        double warnings() {
            return warningsByKind.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        static LeaderSample of(PrometheusText m) {
            return new LeaderSample(
                    m.sum("jvm_memory_used_bytes", l -> "heap".equals(l.get("area"))),
                    m.sum("tandem_raft_peer_resends_total"),
                    Map.copyOf(m.sumBy("tandem_slowness_warnings_total", "kind")),
                    m.sum("tandem_raft_messages_sent_total", l -> "background".equals(l.get("cause"))),
                    m.sum("tandem_raft_commit_overdue_total"),
                    m.sum("tandem_raft_term"),
                    m.sum("tandem_raft_commit_quorum_wait_nanos_count"),
                    m.sum("tandem_raft_commit_quorum_wait_nanos_sum"));
        }
    }

    /**
     * One tick: when it ended (wall clock, to line up with server logs and profiles), the latencies
     * (µs) of puts completed in it, failed puts so far, and the leader's metrics (null if the scrape failed).
     */
    record Tick(int second, long endEpochMillis, Histogram latencies, long errorsSoFar, LeaderSample leader) {}

    private final ClosedLoopLoad load;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon(true).name("tick-sampler").unstarted(r));
    private final List<Tick> ticks = new ArrayList<>();
    private volatile int metricsPort;

    TickSampler(ClosedLoopLoad load, int leaderMetricsPort) {
        this.load = load;
        this.metricsPort = leaderMetricsPort;
    }

    /** Scrapes another node from the next tick on (the leader changed). */
    void retarget(int leaderMetricsPort) {
        metricsPort = leaderMetricsPort;
    }

    void start() {
        load.takeInterval(); // drop anything recorded before the first tick
        timer.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    private void tick() {
        Histogram h = load.takeInterval();
        long errors = load.errors();
        long now = System.currentTimeMillis();
        LeaderSample sample = scrape(metricsPort);
        synchronized (ticks) {
            ticks.add(new Tick(ticks.size(), now, h, errors, sample));
            ticks.notifyAll();
        }
    }

    /** The leader's metrics now, or null if the endpoint did not answer within a second. */
    LeaderSample scrape(int port) {
        PrometheusText m = scrapeText(port);
        return m == null ? null : LeaderSample.of(m);
    }

    /** A node's metrics now, or null if its endpoint did not answer within a second. */
    PrometheusText scrapeText(int port) {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofMillis(900)).GET().build();
            HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) return null;
            return PrometheusText.parse(resp.body());
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    int metricsPort() {
        return metricsPort;
    }

    /** Blocks until {@code count} ticks have been taken. */
    void awaitTicks(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(count + 60L);
        synchronized (ticks) {
            while (ticks.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new IllegalStateException("the tick sampler fell behind: " + ticks.size() + " of " + count + " ticks");
                TimeUnit.NANOSECONDS.timedWait(ticks, left);
            }
        }
    }

    List<Tick> ticks() {
        synchronized (ticks) {
            return List.copyOf(ticks);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
