package io.tandem.kv.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.kv.testing.FreePorts;
import io.tandem.kv.testing.InJvmCluster;
import io.tandem.transport.Endpoint;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's failure handling: typed timeouts, in-doubt writes, exactly-once retries, back-pressure, closing. */
class TandemKvClientTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvClientConfig fast(Endpoint... members) {
        return KvClientConfig.of(List.of(members)).withRequestTimeout(Duration.ofMillis(600)).withAttemptTimeout(Duration.ofMillis(200))
                .withConnectTimeout(Duration.ofMillis(200)).withBackoff(Duration.ofMillis(5), Duration.ofMillis(20));
    }

    @Test
    void nothingListeningGivesATimeoutThatIsNotInDoubt() {
        Endpoint nowhere = new Endpoint("127.0.0.1", FreePorts.take(1).getFirst());
        try (TandemKvClient kv = TandemKvClient.connect(fast(nowhere))) {
            assertThatThrownBy(() -> kv.put(b("k"), b("v"))).isInstanceOfSatisfying(KvTimeoutException.class, e -> {
                assertThat(e.inDoubt()).isFalse();
                assertThat(e.getMessage()).contains("put of key 'k' got no answer within 600ms").contains("cannot connect to " + nowhere);
            });
            assertThatThrownBy(() -> kv.get(b("k"))).isInstanceOf(KvTimeoutException.class);
            assertThat(kv.retries()).isPositive();
            assertThatThrownBy(() -> kv.status(nowhere)).isInstanceOf(KvConnectionException.class).hasMessageContaining("cannot connect to " + nowhere);
        }
    }

    @Test
    void aServerThatNeverAnswersLeavesAWriteInDoubt() throws Exception {
        try (SilentServer silent = new SilentServer(); TandemKvClient kv = TandemKvClient.connect(fast(silent.endpoint()))) {
            assertThatThrownBy(() -> kv.put(b("k"), b("v"))).isInstanceOfSatisfying(KvTimeoutException.class, e -> {
                assertThat(e.inDoubt()).isTrue();
                assertThat(e.getMessage()).contains("did not answer within 200ms").contains("it may have been applied");
            });
            assertThat(silent.requestsSeen()).isGreaterThanOrEqualTo(2); // retried after each attempt timeout
        }
    }

    @Test
    void inFlightOperationsAreBounded() throws Exception {
        try (SilentServer silent = new SilentServer()) {
            TandemKvClient kv = TandemKvClient.connect(fast(silent.endpoint()).withMaxInFlight(2)
                    .withRequestTimeout(Duration.ofSeconds(60)).withAttemptTimeout(Duration.ofSeconds(60)));
            CompletableFuture<?> first = kv.putAsync(b("a"), b("1"));
            CompletableFuture<?> second = kv.putAsync(b("b"), b("2"));
            CompletableFuture<CompletableFuture<?>> third = new CompletableFuture<>();
            Thread caller = Thread.ofPlatform().start(() -> third.complete(kv.putAsync(b("c"), b("3"))));
            // Two writes (two sessions) reach the server; the third caller waits for a slot.
            io.tandem.testing.Await.until(Duration.ofSeconds(10),
                    () -> silent.sessionsSeen().stream().map(sq -> sq[0]).distinct().count() == 2 && caller.getState() == Thread.State.TIMED_WAITING,
                    () -> "two writes sent and the third caller waiting; sessions seen: " + silent.sessionsSeen().size() + ", caller " + caller.getState());
            assertThat(third).isNotDone();
            assertThat(silent.sessionsSeen().stream().map(sq -> sq[0]).distinct().count()).isEqualTo(2);
            kv.close(); // fails the two outstanding writes, which frees the slot the third caller waits for
            assertThatThrownBy(first::join).hasCauseInstanceOf(KvConnectionException.class);
            assertThatThrownBy(second::join).hasCauseInstanceOf(KvConnectionException.class);
            assertThatThrownBy(() -> third.get().join()).hasCauseInstanceOf(KvConnectionException.class);
            caller.join();
        }
    }

    @Test
    void blockingCallsAreRefusedOnTheClientThreadAndClosingFailsWhatIsPending() throws Exception {
        try (SilentServer silent = new SilentServer()) {
            TandemKvClient kv = TandemKvClient.connect(fast(silent.endpoint()).withRequestTimeout(Duration.ofSeconds(30)));
            CompletableFuture<Throwable> refused = new CompletableFuture<>();
            CompletableFuture<?> pending = kv.putAsync(b("k"), b("v"));
            kv.statusAsync(silent.endpoint()).whenComplete((s, e) -> {
                try {
                    kv.get(b("k"));
                    refused.complete(null);
                } catch (Throwable t) {
                    refused.complete(t);
                }
            });
            assertThat(refused.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("client's I/O thread");
            kv.close();
            assertThatThrownBy(pending::join).hasCauseInstanceOf(KvConnectionException.class);
            assertThatThrownBy(() -> kv.get(b("k"))).isInstanceOf(KvConnectionException.class).hasMessageContaining("closed");
        }
    }

    @Test
    void aWriteWhoseAnswerIsLostIsRetriedAndAppliedOnce(@TempDir Path dir) throws Exception {
        try (InJvmCluster cluster = InJvmCluster.start(dir, 3, Map.of())) {
            int leader = cluster.awaitLeader(Duration.ofSeconds(20));
            try (AnswerDroppingProxy proxy = new AnswerDroppingProxy(cluster.clientAddress(leader));
                 TandemKvClient kv = TandemKvClient.connect(KvClientConfig.of(List.of(proxy.endpoint())).withAttemptTimeout(Duration.ofMillis(500)))) {
                // Without the session, the retry would find the key set by the first attempt and fail.
                CasResult r = kv.compareAndSet(b("once"), null, b("x"));
                assertThat(proxy.dropped()).isEqualTo(1);
                assertThat(kv.retries()).isPositive();
                assertThat(r.succeeded()).isTrue();
                assertThat(kv.get(b("once"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("x")));
            }
        }
    }

    @Test
    void theDeadlineEndsRetriesThatKeepTimingOutAndIsNeverEarly() throws Exception {
        try (SilentServer silent = new SilentServer();
             TandemKvClient kv = TandemKvClient.connect(fast(silent.endpoint()).withRequestTimeout(Duration.ofMillis(450)).withAttemptTimeout(Duration.ofMillis(100)))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> kv.put(b("k"), b("v"))).isInstanceOfSatisfying(KvTimeoutException.class, e -> {
                assertThat(e.inDoubt()).isTrue();
                assertThat(e.getMessage()).contains("got no answer within 450ms").contains("did not answer within 100ms");
            });
            // The sweep may fire a timeout late by one interval, never before it is due.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(450));
            // Every retry of the write carried its one session: the same client id and sequence each time.
            List<long[]> sent = silent.sessionsSeen();
            assertThat(sent.size()).isGreaterThanOrEqualTo(2);
            assertThat(sent.stream().map(sq -> sq[0] + "/" + sq[1]).distinct()).hasSize(1);
        }
    }

    @Test
    void aServerThatDiesWithWritesOutstandingFailsEachOfThemInDoubt() throws Exception {
        SilentServer silent = new SilentServer();
        // Timeouts long enough that every write is still in its first attempt when the server dies, even on a loaded machine.
        try (TandemKvClient kv = TandemKvClient.connect(fast(silent.endpoint()).withRequestTimeout(Duration.ofSeconds(8)).withAttemptTimeout(Duration.ofSeconds(8)))) {
            List<CompletableFuture<?>> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) writes.add(kv.putAsync(b("k" + i), b("v")));
            io.tandem.testing.Await.until(Duration.ofSeconds(10), () -> silent.requestsSeen() >= 20, () -> "requests seen: " + silent.requestsSeen());
            silent.close(); // the connection drops and reconnecting is refused: every write is retried until its deadline
            for (CompletableFuture<?> w : writes) {
                assertThatThrownBy(w::join).cause().isInstanceOfSatisfying(KvTimeoutException.class, e -> {
                    assertThat(e.inDoubt()).isTrue();
                    assertThat(e.getMessage()).contains("it may have been applied").containsAnyOf("cannot connect to", "closed");
                });
            }
            assertThat(kv.retries()).isGreaterThanOrEqualTo(20); // each was retried after the connection was lost, not after an attempt timeout
        }
    }

    @Test
    void anAttemptThatGetsNoAnswerMovesOnToAMemberThatAnswers(@TempDir Path dir) throws Exception {
        try (InJvmCluster cluster = InJvmCluster.start(dir, 3, Map.of()); SilentServer silent = new SilentServer()) {
            int leader = cluster.awaitLeader(Duration.ofSeconds(20));
            try (TandemKvClient kv = TandemKvClient.connect(KvClientConfig.of(List.of(silent.endpoint(), cluster.clientAddress(leader)))
                    .withAttemptTimeout(Duration.ofMillis(200)))) {
                List<CompletableFuture<CasResult>> writes = new ArrayList<>();
                for (int i = 0; i < 10; i++) writes.add(kv.compareAndSetAsync(b("once" + i), null, b("x")));
                // A write that went to the silent member first is retried at the leader, in its session: applied once.
                for (CompletableFuture<CasResult> w : writes) assertThat(w.join().succeeded()).isTrue();
                if (silent.requestsSeen() > 0) assertThat(kv.retries()).isPositive();
                for (int i = 0; i < 10; i++) assertThat(kv.get(b("once" + i))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("x")));
            }
        }
    }

    @Test
    void theSweepRunsAtATenthOfTheShortestTimeoutWithinBounds() {
        Endpoint e = new Endpoint("127.0.0.1", 1);
        assertThat(TandemKvClient.sweepInterval(KvClientConfig.of(List.of(e)))).isEqualTo(Duration.ofMillis(50).toNanos());
        assertThat(TandemKvClient.sweepInterval(fast(e))).isEqualTo(Duration.ofMillis(20).toNanos());
        assertThat(TandemKvClient.sweepInterval(fast(e).withAttemptTimeout(Duration.ofMillis(3)))).isEqualTo(Duration.ofMillis(1).toNanos());
    }

    /** Accepts connections and reads requests but never answers. */
    private static final class SilentServer implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final AtomicInteger requests = new AtomicInteger();
        private final List<long[]> sessions = new ArrayList<>();
        private final List<Socket> sockets = new ArrayList<>();

        SilentServer() throws IOException {
            Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        synchronized (sockets) {
                            sockets.add(s);
                        }
                        Thread.ofPlatform().daemon().start(() -> readFrames(s));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        private void readFrames(Socket s) {
            try (DataInputStream in = new DataInputStream(s.getInputStream())) {
                while (true) {
                    byte[] body = new byte[in.readInt()];
                    in.readFully(body);
                    if (body[1] == 1) { // a command: remember its session (client id, sequence)
                        var buf = java.nio.ByteBuffer.wrap(body);
                        synchronized (sessions) {
                            sessions.add(new long[] {buf.getLong(10), buf.getLong(18)});
                        }
                    }
                    requests.incrementAndGet();
                }
            } catch (IOException e) {
                // closed
            }
        }

        Endpoint endpoint() {
            return new Endpoint("127.0.0.1", server.getLocalPort());
        }

        int requestsSeen() {
            return requests.get();
        }

        List<long[]> sessionsSeen() {
            synchronized (sessions) {
                return List.copyOf(sessions);
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (sockets) {
                for (Socket s : sockets) s.close();
            }
        }
    }

    /** Forwards one client connection to a server, dropping the first answer frame. */
    private static final class AnswerDroppingProxy implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final AtomicInteger dropped = new AtomicInteger();
        private final List<Socket> sockets = new ArrayList<>();

        AnswerDroppingProxy(Endpoint target) throws IOException {
            Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket client = server.accept();
                        Socket upstream = new Socket(target.host(), target.port());
                        synchronized (sockets) {
                            sockets.add(client);
                            sockets.add(upstream);
                        }
                        Thread.ofPlatform().daemon().start(() -> pump(client, upstream, false));
                        Thread.ofPlatform().daemon().start(() -> pump(upstream, client, true));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        private void pump(Socket from, Socket to, boolean answers) {
            try (InputStream rawIn = from.getInputStream(); OutputStream rawOut = to.getOutputStream()) {
                DataInputStream in = new DataInputStream(rawIn);
                DataOutputStream out = new DataOutputStream(rawOut);
                while (true) {
                    int length = in.readInt();
                    byte[] body = new byte[length];
                    in.readFully(body);
                    if (answers && dropped.compareAndSet(0, 1)) continue;
                    out.writeInt(length);
                    out.write(body);
                    out.flush();
                }
            } catch (IOException e) {
                // a side closed
            }
        }

        Endpoint endpoint() {
            return new Endpoint("127.0.0.1", server.getLocalPort());
        }

        int dropped() {
            return dropped.get();
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (sockets) {
                for (Socket s : sockets) s.close();
            }
        }
    }
}
