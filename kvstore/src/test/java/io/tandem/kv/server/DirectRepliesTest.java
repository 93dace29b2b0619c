package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.ssl.SslContextBuilder;
import io.tandem.engine.NodeId;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.kv.testing.FreePorts;
import io.tandem.kv.testing.RawClient;
import io.tandem.kv.testing.SecureSetup;
import io.tandem.testing.Await;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.IoMode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DirectReplies}: replies completed on an execution thread (this test's own, ending its batches as the runtime's
 * does) are written to the client socket by that thread, a batch's replies to one connection in one write; whatever
 * that path does not take (bytes a full socket refused, replies sent while Netty holds bytes) goes through the I/O
 * thread without breaking a frame or the connection's order; TLS and NIO connections keep the I/O-thread path.
 */
class DirectRepliesTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) open.get(i).close();
    }

    /** A payload whose bytes say which request and where, so a frame cut or spliced shows up. */
    private static byte[] payload(long id, int length) {
        byte[] p = new byte[length];
        for (int i = 0; i < length; i++) p[i] = (byte) (id * 31 + i);
        return p;
    }

    /**
     * The node's execution thread as the runtime runs it: takes what is queued, answers it, and ends the batch when
     * nothing more is queued ({@link ClientEndpoint#endOfExecutedBatch}). A task may also run on the other thread
     * ({@link #onOther}), which stands for the node's loop answering a rejection or a timeout.
     */
    private static final class Execution implements AutoCloseable {
        final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger batches = new AtomicInteger();
        /** Tasks run. */
        final AtomicInteger ran = new AtomicInteger();
        final Thread thread;
        volatile ClientEndpoint endpoint;

        Execution() {
            thread = Thread.ofPlatform().name("test-exec").daemon(true).start(this::run);
        }

        private void run() {
            try {
                while (true) {
                    Runnable t = tasks.take();
                    do {
                        t.run();
                        ran.incrementAndGet();
                    } while ((t = tasks.poll()) != null);
                    endpoint.endOfExecutedBatch();
                    batches.incrementAndGet();
                }
            } catch (InterruptedException e) {
                // closed
            } catch (Throwable e) {
                failure.set(e);
            }
        }

        @Override
        public void close() throws InterruptedException {
            thread.interrupt();
            thread.join(10_000);
        }
    }

    /** Answers every command with a result of {@code size} bytes on the execution thread. */
    private ClientEndpoint start(Execution exec, int size, ClientSecurity security, IoMode mode) {
        ClientEndpoint endpoint = new ClientEndpoint(NodeId.of("n1"), new Endpoint("127.0.0.1", FreePorts.take(1).get(0)), new ClientEndpoint.Handler() {
            @Override
            public void handle(Request request, ClientEndpoint.Reply reply) {
                long id = request.requestId();
                exec.tasks.add(() -> reply.send(new Response.Result(id, payload(id, size))));
            }

            @Override
            public Response failure(long requestId, Throwable error) {
                return new Response.Error(requestId, ErrorCode.INTERNAL, error.toString());
            }
        }, 100, 1_000_000, 1 << 20, registry, security);
        endpoint.useIoMode(mode);
        exec.endpoint = endpoint;
        endpoint.start();
        open.add(endpoint);
        return endpoint;
    }

    private static ClientSecurity plain() {
        return new ClientSecurity(null, TokenStore.empty(), EnumSet.allOf(Role.class), 100, Duration.ofMinutes(5));
    }

    private Execution execution() {
        Execution e = new Execution();
        open.add(e);
        return e;
    }

    private static Request command(long id) {
        return new Request.Command(id, 1, id + 1, new byte[] {1, 2, 3});
    }

    /** Reads {@code n} responses and checks they answer {@code from..from+n-1} in that order, each payload whole. */
    private static void assertAnswersInOrder(RawClient client, long from, int n, int size) throws IOException {
        for (long id = from; id < from + n; id++) {
            Response r = client.receive();
            assertThat(r).as("answer %d", id).isInstanceOf(Response.Result.class);
            Response.Result result = (Response.Result) r;
            assertThat(result.requestId()).as("answer after %d", id - 1).isEqualTo(id);
            assertThat(result.result()).as("payload of %d", id).isEqualTo(payload(id, size));
        }
    }

    /**
     * The execution thread is held while 50 requests arrive, so that they run as one batch: their 50 replies are
     * written by the execution thread in one {@code send(2)} at the end of the batch, in order, every frame whole.
     */
    @Test
    void anExecutedBatchsRepliesGoStraightToTheSocketInOneWrite() throws Exception {
        Execution exec = execution();
        ClientEndpoint endpoint = start(exec, 40, plain(), IoMode.AUTO);
        try (RawClient client = new RawClient(endpoint.address())) {
            client.send(command(0)); // a first batch: from its end on, the execution thread's replies are held
            assertAnswersInOrder(client, 0, 1, 40);
            Await.until(WAIT, () -> exec.batches.get() > 0);
            CountDownLatch release = new CountDownLatch(1);
            exec.tasks.add(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Await.until(WAIT, () -> exec.tasks.isEmpty(), () -> "the execution thread is held");
            for (int id = 1; id <= 50; id++) client.send(command(id));
            Await.until(WAIT, () -> exec.tasks.size() == 50, () -> exec.tasks.size() + " of 50 requests handed to execution");
            long sendsBefore = endpoint.directSends();
            long directBefore = endpoint.directReplies();
            release.countDown();
            assertAnswersInOrder(client, 1, 50, 40);
            // The client may read the bytes before the execution thread counts its write: wait for the batch's end.
            Await.until(WAIT, () -> exec.batches.get() >= 2, () -> "the batch ended");
            assertThat(endpoint.directReplies() - directBefore).as("replies written by the execution thread").isEqualTo(50);
            assertThat(endpoint.directSends() - sendsBefore).as("writes for the batch's 50 replies").isEqualTo(1);
        }
        assertThat(exec.failure.get()).isNull();
    }

    /**
     * Replies from three threads on one connection, each handed over at a point the test fixes: a batch of five on
     * the execution thread (held, then written at the end of its batch), one from another thread (the node's loop,
     * written at once), one on the I/O thread (the handler answers it while reading it). The I/O thread's reply goes
     * through Netty, so the next batch may find Netty still holding bytes and go through the I/O thread too; the
     * bytes must arrive in exactly the order handed over, every frame whole.
     */
    @Test
    void repliesFromTheExecutionThreadAnotherThreadAndTheIoThreadKeepTheirOrder() throws Exception {
        Execution exec = execution();
        LinkedBlockingQueue<ClientEndpoint.Reply> waiting = new LinkedBlockingQueue<>();
        ClientEndpoint endpoint = new ClientEndpoint(NodeId.of("n1"), new Endpoint("127.0.0.1", FreePorts.take(1).get(0)), new ClientEndpoint.Handler() {
            @Override
            public void handle(Request request, ClientEndpoint.Reply reply) {
                long id = request.requestId();
                if (id % 7 == 6) reply.send(new Response.Result(id, payload(id, 40))); // on the I/O thread
                else waiting.add(reply);
            }

            @Override
            public Response failure(long requestId, Throwable error) {
                return new Response.Error(requestId, ErrorCode.INTERNAL, error.toString());
            }
        }, 100, 1_000_000, 1 << 20, registry, plain());
        exec.endpoint = endpoint;
        endpoint.start();
        open.add(endpoint);
        int rounds = 300;
        try (RawClient client = new RawClient(endpoint.address())) {
            for (long id = 0; id < rounds * 7L; id += 7) {
                for (int k = 0; k < 5; k++) client.send(command(id + k));
                List<ClientEndpoint.Reply> batch = new ArrayList<>();
                for (int k = 0; k < 5; k++) batch.add(waiting.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
                int batchesBefore = exec.batches.get();
                exec.tasks.add(() -> {
                    for (ClientEndpoint.Reply r : batch) r.send(new Response.Result(r.requestId(), payload(r.requestId(), 40)));
                });
                Await.until(WAIT, () -> exec.batches.get() > batchesBefore, () -> "the batch ended");
                client.send(command(id + 5));
                ClientEndpoint.Reply other = waiting.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                Thread.ofPlatform().start(() -> other.send(new Response.Result(other.requestId(), payload(other.requestId(), 40)))).join();
                client.send(command(id + 6));
                assertAnswersInOrder(client, id, 7, 40);
            }
        }
        assertThat(exec.failure.get()).isNull();
        Await.until(WAIT, () -> endpoint.directReplies() > 0, () -> "replies written by the thread that completed them");
    }

    /**
     * The client reads nothing for a while: the server's socket fills, a direct write is cut short, the rest of its
     * bytes (the tail of a frame, maybe) and every reply after them go through Netty; once the client reads, every
     * answer arrives whole and in order, and later replies are written directly again.
     */
    @Test
    void aSocketThatTakesOnlyPartGetsTheRestThroughTheIoThreadInOrder() throws Exception {
        Execution exec = execution();
        int size = 3_000; // a batch of the 10 requests sent at a time stays below the direct path's size limit
        ClientEndpoint endpoint = start(exec, size, plain(), IoMode.AUTO);
        Socket socket = new Socket();
        socket.setReceiveBufferSize(16 * 1024);
        socket.connect(new InetSocketAddress("127.0.0.1", endpoint.address().port()), 5_000);
        try (RawClient client = new RawClient(socket)) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            int sent = 0;
            while (endpoint.directShortSends() == 0) {
                assertThat(System.nanoTime()).as("a direct write is cut short").isLessThan(deadline);
                for (int k = 0; k < 10; k++) client.send(command(sent++));
                int upTo = sent;
                // All answered before the next 10 are sent: no batch holds more than 10 replies (30 KB).
                Await.until(WAIT, () -> exec.ran.get() == upTo, () -> exec.ran.get() + " of " + upTo + " answered");
            }
            int more = Math.min(sent, 300);
            for (int k = 0; k < more; k++) client.send(command(sent++));
            assertAnswersInOrder(client, 0, sent, size);
            long directBefore = endpoint.directReplies();
            // Netty's buffer has drained: the direct path resumes.
            for (int k = 0; k < 50; k++) {
                client.send(command(sent));
                assertAnswersInOrder(client, sent, 1, size);
                sent++;
            }
            Await.until(WAIT, () -> endpoint.directReplies() > directBefore, () -> "direct replies after the socket drained");
        }
        assertThat(exec.failure.get()).isNull();
    }

    /**
     * The client resets its connection while replies are being written to it: the execution thread's writes fail
     * without an exception, the connection is closed, and a new connection is answered directly.
     */
    @Test
    void aConnectionResetMidWriteIsClosedAndTheNextOneIsServed() throws Exception {
        Execution exec = execution();
        int size = 3_000;
        ClientEndpoint endpoint = start(exec, size, plain(), IoMode.AUTO);
        Socket socket = new Socket();
        socket.setReceiveBufferSize(16 * 1024);
        socket.connect(new InetSocketAddress("127.0.0.1", endpoint.address().port()), 5_000);
        RawClient client = new RawClient(socket);
        for (int id = 0; id < 2_000; id++) client.send(command(id));
        assertAnswersInOrder(client, 0, 1, size);
        socket.setSoLinger(true, 0); // close with a reset: the server's next writes fail
        client.close();
        Await.until(WAIT, () -> exec.tasks.isEmpty(), () -> exec.tasks.size() + " tasks left");
        Await.until(WAIT, () -> registry.get("tandem.kv.server.connections").gauge().value() == 0,
                () -> "open connections: " + registry.get("tandem.kv.server.connections").gauge().value());
        assertThat(exec.failure.get()).isNull();
        long directBefore = endpoint.directReplies();
        try (RawClient next = new RawClient(endpoint.address())) {
            for (int id = 0; id < 20; id++) next.send(command(id));
            assertAnswersInOrder(next, 0, 20, size);
        }
        // A fresh socket's send buffer starts small (16 KiB): part of these may go through the I/O thread.
        Await.until(WAIT, () -> endpoint.directReplies() > directBefore, () -> "replies written directly on the new connection");
        assertThat(exec.failure.get()).isNull();
    }

    @Test
    void aTlsConnectionKeepsTheIoThreadPath() throws Exception {
        SecureSetup setup = new SecureSetup(dir, 1);
        var n1 = setup.issued.get("n1");
        ClientSecurity tls = new ClientSecurity(SslContextBuilder.forServer(n1.key(), n1.certificate(), setup.ca.certificate()).build(),
                TokenStore.empty(), EnumSet.allOf(Role.class), 100, Duration.ofMinutes(5));
        Execution exec = execution();
        ClientEndpoint endpoint = start(exec, 40, tls, IoMode.AUTO);
        SSLSocket socket = (SSLSocket) setup.attacker(endpoint.address(), null, null);
        int n = 500;
        try (RawClient client = new RawClient(socket)) {
            for (int id = 0; id < n; id++) client.send(command(id));
            assertAnswersInOrder(client, 0, n, 40);
        }
        assertThat(endpoint.directReplies()).isZero();
        assertThat(exec.failure.get()).isNull();
    }

    @Test
    void anNioConnectionKeepsTheIoThreadPath() throws Exception {
        Execution exec = execution();
        ClientEndpoint endpoint = start(exec, 40, plain(), IoMode.NIO);
        int n = 500;
        try (RawClient client = new RawClient(endpoint.address())) {
            for (int id = 0; id < n; id++) client.send(command(id));
            assertAnswersInOrder(client, 0, n, 40);
        }
        assertThat(endpoint.directReplies()).isZero();
        assertThat(exec.failure.get()).isNull();
    }
}
