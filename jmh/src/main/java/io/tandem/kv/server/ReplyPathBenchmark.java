package io.tandem.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvLimits;
import io.tandem.kv.KvResult;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.Response;
import io.tandem.runtime.RequestAnswer;
import io.tandem.statemachine.CommandResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The leader's answer to one put from the moment execution has its result to the reply's bytes in a buffer (issue 25,
 * hotpath13), both ways on one thread (the hand-off between the threads is {@link ReplyHandOffBenchmark}'s):
 * <ul>
 *   <li>{@code futureStages}: what main 8f2e954 does: the runtime's future ({@code CompletableFuture<byte[]>}), the
 *       server's {@code handle} stage making a {@code Response.Result}, the endpoint's {@code whenComplete} stage, the
 *       result encoded into an array on completion and that array copied into the reply frame;</li>
 *   <li>{@code replyObject}: this branch: one object per request is the runtime's {@link RequestAnswer}; it keeps the
 *       {@link KvResult} and the frame is written from it ({@link ClientWire#writeResult}).</li>
 * </ul>
 * The result is a put's: the previous value ({@code valueSize} bytes). A reconstruction of the two paths' steps with the
 * same public classes, not the endpoint itself (its reply is bound to a channel).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReplyPathBenchmark {
    @Param({"64"})
    int valueSize;

    private final KvCodec codec = new KvCodec(KvLimits.DEFAULTS);
    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    private final AtomicInteger unanswered = new AtomicInteger();
    private KvResult result;
    private long requestId;
    private Response written;

    @Setup
    public void setup() {
        result = new KvResult.Found(new byte[valueSize]);
    }

    @Benchmark
    public int futureStages() {
        long id = ++requestId;
        unanswered.incrementAndGet();
        CompletableFuture<byte[]> runtime = new CompletableFuture<>();
        CompletableFuture<Response> server = runtime.handle((bytes, error) -> error == null ? new Response.Result(id, bytes) : null);
        server.whenComplete((response, failure) -> {
            unanswered.decrementAndGet();
            written = response;
        });
        runtime.complete(codec.encode(result)); // the execution thread
        ByteBuf out = alloc.buffer(ClientWire.sizeHint(written)); // the I/O thread
        ClientWire.writeResponse(written, out);
        int n = out.readableBytes();
        out.release();
        return n;
    }

    /** The endpoint's reply, reduced to what a put's answer touches. */
    private final class Reply implements RequestAnswer {
        final long id;
        KvResult kv;

        Reply(long id) {
            this.id = id;
        }

        @Override
        public void completed(CommandResult r) {
            kv = (KvResult) r;
            unanswered.decrementAndGet();
        }

        @Override
        public void failed(Throwable error) {
            throw new AssertionError(error);
        }
    }

    @Benchmark
    public int replyObject() {
        unanswered.incrementAndGet();
        Reply reply = new Reply(++requestId);
        reply.completed(result); // the execution thread
        ByteBuf out = alloc.buffer(ClientWire.resultSizeHint(reply.kv)); // the I/O thread
        ClientWire.writeResult(reply.id, reply.kv, out);
        int n = out.readableBytes();
        out.release();
        return n;
    }
}
