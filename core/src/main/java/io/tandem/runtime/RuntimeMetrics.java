package io.tandem.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * The runtime's own meters (DESIGN §9): client outcomes and latency, execution, loop health.
 *
 * <p>Every meter here is a counter: nothing on the path of a write records a histogram. A Micrometer
 * timer with published percentiles updates a ring of histograms per record, which showed in the
 * leader's profile on every put; percentiles belong to the client, which sees the whole latency
 * anyway. The completed count and the latency sum still give the mean per kind.
 */
final class RuntimeMetrics {
    final Counter applied;
    final Counter duplicates;
    final Counter stale;
    final Counter answeredFromSessions;
    final Counter forwarded;
    final Counter forwardsServed;
    final Counter rejectedNotLeader;
    final Counter rejectedOverloaded;
    final Counter rejectedUnavailable;
    final Counter timedOut;
    final Counter sendsDropped;
    final Counter engineFailures;
    private final Counter writesCompleted;
    private final Counter readsCompleted;
    private final Counter writeLatencySum;
    private final Counter readLatencySum;
    private final Counter resentWritesCompleted;
    private final Counter resentWriteLatencySum;

    RuntimeMetrics(MeterRegistry registry, Tags tags) {
        applied = Counter.builder("tandem.exec.applied").tags(tags).register(registry);
        duplicates = Counter.builder("tandem.exec.duplicates").description("retried commands answered from the session table").tags(tags).register(registry);
        stale = Counter.builder("tandem.exec.stale").description("copies of commands below their session's low watermark, not applied").tags(tags).register(registry);
        answeredFromSessions = Counter.builder("tandem.exec.answered.from.sessions")
                .description("requests whose command had already executed here when they arrived, answered from the session table").tags(tags).register(registry);
        forwarded = Counter.builder("tandem.client.forwarded").description("requests sent on to a member that can order them").tags(tags).register(registry);
        forwardsServed = Counter.builder("tandem.client.forwards.served").description("requests other members forwarded here").tags(tags).register(registry);
        rejectedNotLeader = Counter.builder("tandem.client.rejected").tags(tags.and("reason", "not-leader")).register(registry);
        rejectedOverloaded = Counter.builder("tandem.client.rejected").tags(tags.and("reason", "overloaded")).register(registry);
        rejectedUnavailable = Counter.builder("tandem.client.rejected").tags(tags.and("reason", "unavailable")).register(registry);
        timedOut = Counter.builder("tandem.client.timeouts").tags(tags).register(registry);
        sendsDropped = Counter.builder("tandem.runtime.sends.dropped").description("messages the transport refused at once").tags(tags).register(registry);
        engineFailures = Counter.builder("tandem.runtime.engine.failures").tags(tags).register(registry);
        writesCompleted = Counter.builder("tandem.client.completed").description("client requests answered, by kind").tags(tags.and("kind", "write")).register(registry);
        readsCompleted = Counter.builder("tandem.client.completed").description("client requests answered, by kind").tags(tags.and("kind", "read")).register(registry);
        writeLatencySum = Counter.builder("tandem.client.latency.sum").description("seconds from submission to answer, summed; over tandem.client.completed: the mean")
                .baseUnit("seconds").tags(tags.and("kind", "write")).register(registry);
        readLatencySum = Counter.builder("tandem.client.latency.sum").description("seconds from submission to answer, summed; over tandem.client.completed: the mean")
                .baseUnit("seconds").tags(tags.and("kind", "read")).register(registry);
        // Optimistic P-SMR's fail latency (opt-psmr.md §8.2 Mode L, the paper's Fig. 3): the writes of
        // this node whose first attempt failed its safety check and waited for the conservative copy
        // to be ordered. A subset of kind=write; the mean of the others is the pass latency.
        resentWritesCompleted = Counter.builder("tandem.client.completed").description("client requests answered, by kind")
                .tags(tags.and("kind", "write-after-failed-check")).register(registry);
        resentWriteLatencySum = Counter.builder("tandem.client.latency.sum").description("seconds from submission to answer, summed; over tandem.client.completed: the mean")
                .baseUnit("seconds").tags(tags.and("kind", "write-after-failed-check")).register(registry);
    }

    /** {@code count} writes answered, {@code nanos} from their admission summed (the execution thread's batch). */
    void writesCompleted(long count, long nanos) {
        writesCompleted.increment(count);
        writeLatencySum.increment(nanos * 1e-9);
    }

    void recordLatency(PendingRequests.Pending p) {
        recordLatency(p, false);
    }

    /** {@code afterFailedCheck}: a write answered only once its conservative copy ran (optimistic P-SMR). */
    void recordLatency(PendingRequests.Pending p, boolean afterFailedCheck) {
        double seconds = (System.nanoTime() - p.startNanos()) * 1e-9;
        if (afterFailedCheck && !p.read()) {
            resentWritesCompleted.increment();
            resentWriteLatencySum.increment(seconds);
        }
        if (p.read()) {
            readsCompleted.increment();
            readLatencySum.increment(seconds);
        } else {
            writesCompleted.increment();
            writeLatencySum.increment(seconds);
        }
    }
}
