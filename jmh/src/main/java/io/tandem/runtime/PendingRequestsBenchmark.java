package io.tandem.runtime;

import io.tandem.engine.ClientRequest;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The leader's bookkeeping of one client put (issue 25): {@link PendingRequests#admit} of a command with a session (what
 * the client I/O thread does per put) and {@link PendingRequests#take} by its id once it executed (what the execution
 * thread does), with {@code inFlight} other puts pending meanwhile (the closed-loop clients' outstanding puts). Each
 * operation admits one put and takes the one admitted {@code inFlight} operations earlier. Both on the benchmark thread:
 * it measures the tables, not the hand-off between the threads. Lives in the package it measures (package-private).
 * Run against another build's core by putting that core jar first on the class path (the API used here is unchanged).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PendingRequestsBenchmark {
    @Param({"16", "256"})
    int inFlight;

    private static final byte[] COMMAND = new byte[80];
    private PendingRequests pending;
    private long[] ids;
    private int next;
    private long sequence;

    @Setup
    public void setup() {
        pending = new PendingRequests(100_000);
        ids = new long[inFlight];
        for (int i = 0; i < inFlight; i++) ids[i] = admit();
    }

    private long admit() {
        ClientRequest.Session session = new ClientRequest.Session(1 + (sequence & 63), ++sequence, 0);
        return pending.admit(0, Long.MAX_VALUE / 4, new PendingRequests.Spec(ClientRequest.Kind.COMMAND, session, COMMAND, null), false).requestId();
    }

    /** One put's admission and completion, {@code inFlight} others pending. */
    @Benchmark
    public Object admitAndTake() {
        PendingRequests.Pending p = pending.take(ids[next]);
        ids[next] = admit();
        next = next + 1 == inFlight ? 0 : next + 1;
        return p;
    }
}
