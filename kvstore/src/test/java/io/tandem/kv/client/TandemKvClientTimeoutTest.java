package io.tandem.kv.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvLimits;
import io.tandem.kv.KvResult;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.transport.Endpoint;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The client's timeouts come from one periodic sweep over its outstanding operations (issue 25: no
 * timer per put; {@link TandemKvClient#sweepInterval}). A scripted server that applies each
 * (client id, sequence) once stands in for the cluster, so the tests see what a store with
 * exactly-once sessions would have done: a lost answer retries the attempt in the same session and
 * the write is applied once; a silent server fails the write in doubt with the documented exception,
 * never before its deadline; an answer that arrives before the deadline wins; many outstanding writes
 * each time out once. Timings are asserted only as lower bounds (a timeout never fires early); what
 * depends on scheduling (how many attempts a stalled machine makes) is asserted as a relation that
 * holds however late the sweep runs, never as a count.
 */
class TandemKvClientTimeoutTest {
    private static final KvCodec CODEC = new KvCodec(KvLimits.DEFAULTS);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvClientConfig config(Endpoint member, Duration request, Duration attempt) {
        return KvClientConfig.of(List.of(member)).withRequestTimeout(request).withAttemptTimeout(attempt)
                .withConnectTimeout(Duration.ofMillis(500)).withBackoff(Duration.ofMillis(5), Duration.ofMillis(20));
    }

    @Test
    void aLostAnswerRetriesTheAttemptInTheSameSessionAndTheWriteIsAppliedOnce() throws Exception {
        // The first answer is lost: the attempt times out and the retry carries the same (client id, sequence).
        Duration attempt = Duration.ofMillis(300);
        try (ScriptedServer server = new ScriptedServer(seen -> seen == 1 ? Action.DROP : Action.ANSWER);
             TandemKvClient kv = TandemKvClient.connect(config(server.endpoint(), Duration.ofSeconds(30), attempt))) {
            long before = System.nanoTime();
            assertThat(kv.put(b("k"), b("v"))).isEmpty();
            long elapsed = System.nanoTime() - before;
            assertThat(elapsed).as("the retry waited for the attempt timeout").isGreaterThanOrEqualTo(attempt.toNanos());
            List<List<Long>> seen = server.commandsSeen();
            // Normally two attempts; a stalled machine may time out an answered attempt too. Either way every attempt
            // but the answered last one was a retry, all in one session, and the store applied the write once.
            assertThat(seen).hasSizeGreaterThanOrEqualTo(2);
            assertThat(seen.stream().distinct()).hasSize(1);
            assertThat(kv.retries()).isEqualTo(seen.size() - 1);
            assertThat(server.applied()).isEqualTo(1);
            // The next write takes the session back from the client's pool (its only one) with the next sequence: applied too, once.
            assertThat(kv.put(b("k2"), b("v"))).isEmpty();
            List<Long> next = server.commandsSeen().getLast();
            assertThat(next.get(0)).isEqualTo(seen.get(0).get(0));
            assertThat(next.get(1)).isGreaterThan(seen.get(0).get(1));
            assertThat(server.applied()).isEqualTo(2);
        }
    }

    @Test
    void aDeadServerFailsTheWriteWithAnInDoubtTimeoutNotBeforeTheDeadline() throws Exception {
        Duration request = Duration.ofMillis(1500);
        try (ScriptedServer server = new ScriptedServer(seen -> Action.DROP);
             TandemKvClient kv = TandemKvClient.connect(config(server.endpoint(), request, Duration.ofMillis(150)))) {
            long before = System.nanoTime();
            CompletableFuture<Optional<byte[]>> put = kv.putAsync(b("k"), b("v"));
            Throwable failure = failureOf(put);
            long elapsed = System.nanoTime() - before;
            assertThat(failure).isInstanceOfSatisfying(KvTimeoutException.class, e -> {
                assertThat(e.inDoubt()).isTrue();
                assertThat(e.getMessage()).contains("put of key 'k' got no answer within 1.5s").contains("did not answer within 150ms")
                        .contains("it may have been applied");
            });
            assertThat(elapsed).as("never before the request timeout").isGreaterThanOrEqualTo(request.toNanos());
            // Each attempt timeout retried: at 150 ms attempts in a 1.5 s deadline at least one retry went out.
            assertThat(kv.retries()).isPositive();
            io.tandem.testing.Await.until(Duration.ofSeconds(10), () -> server.commandsSeen().size() >= 2, () -> "commands seen: " + server.commandsSeen());
            assertThat(server.commandsSeen().stream().distinct().count()).isEqualTo(1); // all in one session, one sequence
            assertThat(server.applied()).isEqualTo(1); // the server applied the write and lost every answer: in doubt, applied once

            // A request to one fixed member fails with a connection error by min(request, attempt) timeout.
            long statusStart = System.nanoTime();
            Throwable statusFailure = failureOf(kv.statusAsync(server.endpoint()));
            assertThat(statusFailure).isInstanceOf(KvConnectionException.class).hasMessageContaining("150ms");
            assertThat(System.nanoTime() - statusStart).isGreaterThanOrEqualTo(Duration.ofMillis(150).toNanos());
        }
    }

    @Test
    void anAnswerJustBeforeTheDeadlineWins() throws Exception {
        // One attempt (attempt timeout = request timeout); the server answers 1 s into a 6 s deadline: sweeps run
        // every 50 ms meanwhile and must leave the operation alone.
        Duration timeout = Duration.ofSeconds(6);
        try (ScriptedServer server = new ScriptedServer(seen -> Action.DELAY);
             TandemKvClient kv = TandemKvClient.connect(config(server.endpoint(), timeout, timeout))) {
            long before = System.nanoTime();
            assertThat(kv.put(b("k"), b("v"))).isEmpty();
            assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(ScriptedServer.DELAY.toNanos());
            assertThat(server.commandsSeen()).hasSize(1);
            assertThat(server.applied()).isEqualTo(1);
            assertThat(kv.retries()).isZero();
            // The sweep stopped with nothing outstanding and restarts with the next operation: a later write still
            // times out, in doubt (the store applied it), and not before its deadline.
            server.policy = seen -> Action.DROP;
            long second = System.nanoTime();
            assertThatThrownBy(() -> kv.put(b("k2"), b("v"))).isInstanceOfSatisfying(KvTimeoutException.class, e -> assertThat(e.inDoubt()).isTrue());
            assertThat(System.nanoTime() - second).isGreaterThanOrEqualTo(timeout.toNanos());
            assertThat(server.applied()).isEqualTo(2);
        }
    }

    @Test
    void manyOutstandingWritesAreEachTimedOutOnce() throws Exception {
        // Attempt timeout = request timeout: the deadline comes with the first attempt's timeout, so no write is retried.
        Duration timeout = Duration.ofSeconds(2);
        try (ScriptedServer server = new ScriptedServer(seen -> Action.DROP);
             TandemKvClient kv = TandemKvClient.connect(config(server.endpoint(), timeout, timeout))) {
            long before = System.nanoTime();
            List<CompletableFuture<Optional<byte[]>>> puts = new ArrayList<>();
            for (int i = 0; i < 50; i++) puts.add(kv.putAsync(b("k" + i), b("v")));
            int inDoubt = 0;
            for (CompletableFuture<Optional<byte[]>> p : puts) {
                Throwable failure = failureOf(p);
                assertThat(failure).isInstanceOf(KvTimeoutException.class);
                if (((KvTimeoutException) failure).inDoubt()) inDoubt++;
            }
            assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(timeout.toNanos());
            assertThat(kv.retries()).isZero();
            List<List<Long>> seen = server.commandsSeen();
            // One attempt each (concurrent writes hold sessions of their own: no (client id, sequence) twice); a write the
            // server saw was sent, so its timeout says it may have been applied (a write never sent, on a stalled
            // machine, would say it was not).
            assertThat(seen.stream().distinct().count()).isEqualTo(seen.size());
            assertThat(inDoubt).isGreaterThanOrEqualTo(seen.size());
            assertThat(server.applied()).isEqualTo(seen.size());
        }
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure, got " + f.join());
    }

    enum Action { ANSWER, DROP, DELAY }

    /** What to do with the n-th command (1-based) the server receives. */
    interface Policy {
        Action decide(int seen);
    }

    /**
     * Reads the client protocol and answers commands as a KV store with exactly-once sessions would
     * (a repeated (client id, sequence) gets the saved answer, not a second application), dropping or
     * delaying answers as its policy says. Other requests are never answered.
     */
    private static final class ScriptedServer implements AutoCloseable {
        static final Duration DELAY = Duration.ofSeconds(1);
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final ScheduledExecutorService delayed = Executors.newSingleThreadScheduledExecutor();
        private final List<Socket> sockets = new ArrayList<>();
        private final List<List<Long>> commands = new ArrayList<>();
        private final Map<Long, Long> lastSequence = new HashMap<>();
        private final AtomicInteger applied = new AtomicInteger();
        volatile Policy policy;

        ScriptedServer(Policy policy) throws IOException {
            this.policy = policy;
            Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        synchronized (sockets) {
                            sockets.add(s);
                        }
                        Thread.ofPlatform().daemon().start(() -> serve(s));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        private void serve(Socket s) {
            try (DataInputStream in = new DataInputStream(s.getInputStream())) {
                OutputStream out = s.getOutputStream();
                while (true) {
                    byte[] body = new byte[in.readInt()];
                    in.readFully(body);
                    if (!(ClientWire.readRequest(Unpooled.wrappedBuffer(body)) instanceof Request.Command c)) continue;
                    int seen;
                    byte[] answer;
                    synchronized (commands) { // seen and applied move together: a test never sees one without the other
                        commands.add(List.of(c.clientId(), c.sequence()));
                        seen = commands.size();
                        answer = apply(c);
                    }
                    switch (policy.decide(seen)) {
                        case ANSWER -> send(out, answer);
                        case DROP -> {}
                        case DELAY -> delayed.schedule(() -> send(out, answer), DELAY.toMillis(), TimeUnit.MILLISECONDS);
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }

        /** Applies a command once per (client id, sequence); every answer is "no previous value". */
        private byte[] apply(Request.Command c) {
            synchronized (lastSequence) {
                Long last = lastSequence.get(c.clientId());
                if (last == null || c.sequence() > last) {
                    lastSequence.put(c.clientId(), c.sequence());
                    applied.incrementAndGet();
                }
            }
            ByteBuf frame = Unpooled.buffer();
            ClientWire.writeResponse(new Response.Result(c.requestId(), CODEC.encode(new KvResult.NotFound())), frame);
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            return bytes;
        }

        private static void send(OutputStream out, byte[] frame) {
            try {
                synchronized (out) {
                    out.write(frame);
                    out.flush();
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        Endpoint endpoint() {
            return new Endpoint("127.0.0.1", server.getLocalPort());
        }

        /** Every command's (client id, sequence), in arrival order. */
        List<List<Long>> commandsSeen() {
            synchronized (commands) {
                return List.copyOf(commands);
            }
        }

        int applied() {
            return applied.get();
        }

        @Override
        public void close() throws IOException {
            delayed.shutdownNow();
            server.close();
            synchronized (sockets) {
                for (Socket s : sockets) s.close();
            }
        }
    }
}
