package io.tandem.kv.server;

import io.netty.channel.Channel;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The hand-off of client replies from the thread that completes them (the execution thread) to the
 * client endpoint's I/O thread (issue 25): {@code taskPerReply} is the old path, one event-loop task
 * per reply (what {@code channel.writeAndFlush} from another thread does), {@code replyQueue} the
 * {@link ReplyQueue}, one task per batch. One operation hands {@code replies} replies over (a
 * burst, as the execution thread completes an executed batch) and waits until the I/O thread has
 * written them all, so at {@code replies = 1} the score is the round-trip latency of one hand-off.
 * The write itself is a counter: the benchmark measures the hand-off, not Netty's socket writes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReplyHandOffBenchmark {
    @Param({"1", "16", "64"})
    int replies;

    private DefaultEventLoop loop;
    private EmbeddedChannel channel;
    private ReplyQueue<Channel> queue;
    /** Replies written so far; written on the I/O thread only, read by the benchmark thread. */
    private volatile long written;
    private long expected;

    @Setup(Level.Trial)
    public void setUp() {
        loop = new DefaultEventLoop();
        channel = new EmbeddedChannel();
        // The reply is its channel here: the write is a counter (what a reply object of the server carries does not matter).
        queue = new ReplyQueue<>(loop, ch -> ch, ch -> written++);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        channel.finishAndReleaseAll();
    }

    @Benchmark
    public long taskPerReply() {
        for (int i = 0; i < replies; i++) loop.execute(this::writeOne);
        return await();
    }

    @Benchmark
    public long replyQueue() {
        for (int i = 0; i < replies; i++) queue.offer(channel);
        return await();
    }

    @SuppressWarnings("NonAtomicOperationOnVolatileField") // one writer: the I/O thread
    private void writeOne() {
        written++;
        channel.flush();
    }

    private long await() {
        expected += replies;
        while (written < expected) Thread.onSpinWait();
        return expected;
    }
}
