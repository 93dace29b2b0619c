package io.tandem.peers.aeron;

import io.aeron.Publication;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.EgressListener;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.Header;
import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.PeerClient;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.IdleStrategy;

/**
 * An Aeron Cluster session shared by all closed-loop clients. {@link AeronCluster} is single-threaded, so one
 * dedicated thread owns it: {@link #put} only queues the put and wakes that thread, which offers queued puts
 * to the ingress, polls the egress and completes each put when the service's reply with its correlation id
 * arrives. {@link AeronCluster} follows leader changes itself; when it reports a new leader, puts still
 * unanswered are offered again (a put is idempotent), and any put unanswered after {@code timeout-ms} fails.
 *
 * <p>The client runs its own embedded media driver (SHARED threading, the same idle strategy as the replicas)
 * in a fresh /dev/shm directory that is deleted on close.
 */
final class AeronClusterClient implements PeerClient, EgressListener {
    private static final long KEEP_ALIVE_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long SWEEP_NS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Queue<Put> submitted = new ConcurrentLinkedQueue<>();
    private final long timeoutNanos;
    private final String aeronDirectory;
    private final MediaDriver driver;
    private final AeronCluster.Context clusterContext;
    private final Supplier<IdleStrategy> idle;
    private final Thread poller;
    private volatile boolean running = true;

    // Owned by the poller thread.
    private AeronCluster cluster;
    private final ArrayDeque<Put> pending = new ArrayDeque<>();
    private final Long2ObjectHashMap<Put> inFlight = new Long2ObjectHashMap<>();
    private final ExpandableArrayBuffer sendBuffer = new ExpandableArrayBuffer(2048);
    private long nextCorrelationId = 1;
    private long lastIngressNs = System.nanoTime();

    /** One put: its copy of the key and value, the caller's future and its deadline. */
    private record Put(byte[] key, byte[] value, CompletableFuture<Void> result, long deadlineNs) {
    }

    AeronClusterClient(ClientConfig config) {
        timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(config.option("timeout-ms", "10000")));
        idle = AeronSettings.idleStrategy(config.options());
        aeronDirectory = AeronSettings.aeronDirectory("client");
        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
                .aeronDirectoryName(aeronDirectory)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(idle.get())
                .termBufferSparseFile(true)
                .errorHandler(error -> System.err.println("aeron client driver: " + error)));
        clusterContext = new AeronCluster.Context()
                .aeronDirectoryName(aeronDirectory)
                .egressListener(this)
                .egressChannel(AeronSettings.ephemeralUdp(config.layout().host()))
                .ingressChannel("aeron:udp")
                .ingressEndpoints(AeronSettings.ingressEndpoints(config.layout()))
                .idleStrategy(idle.get())
                .errorHandler(error -> System.err.println("aeron cluster client: " + error));
        try {
            cluster = AeronCluster.connect(clusterContext.clone());
        } catch (RuntimeException e) {
            CloseHelper.quietClose(driver);
            AeronSettings.deleteRecursively(aeronDirectory);
            throw e;
        }
        poller = Thread.ofPlatform().daemon(true).name("aeron-cluster-client").start(this::pollLoop);
    }

    @Override
    public CompletableFuture<Void> put(byte[] key, byte[] value) {
        Put put = new Put(key.clone(), value.clone(), new CompletableFuture<>(), System.nanoTime() + timeoutNanos);
        if (!running) {
            put.result.completeExceptionally(new IllegalStateException("client closed"));
            return put.result;
        }
        submitted.add(put);
        LockSupport.unpark(poller); // the poller may be parked by its back-off idle strategy
        return put.result;
    }

    private void pollLoop() {
        IdleStrategy idleStrategy = idle.get();
        long lastSweepNs = System.nanoTime();
        try {
            while (running) {
                if (cluster == null || cluster.isClosed()) reconnect();
                int work = offerPending();
                work += cluster == null ? 0 : cluster.pollEgress();
                long now = System.nanoTime();
                if (now - lastSweepNs >= SWEEP_NS) {
                    expire(now);
                    lastSweepNs = now;
                }
                if (cluster != null && now - lastIngressNs >= KEEP_ALIVE_NS && cluster.sendKeepAlive()) lastIngressNs = now;
                idleStrategy.idle(work);
            }
        } finally {
            CloseHelper.quietClose(cluster);
            failAll(new IllegalStateException("client closed"));
        }
    }

    /** Offers queued puts in order until the ingress pushes back; returns how many were sent. */
    private int offerPending() {
        for (Put put; (put = submitted.poll()) != null; ) pending.addLast(put);
        if (cluster == null) return 0;
        int sent = 0;
        for (Put put; (put = pending.peekFirst()) != null; ) {
            long correlationId = nextCorrelationId++;
            int length = KvClusteredService.encodePut(sendBuffer, correlationId, put.key, put.value);
            long result = cluster.offer(sendBuffer, 0, length);
            if (result < 0) {
                if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) CloseHelper.quietClose(cluster);
                break; // NOT_CONNECTED, BACK_PRESSURED, ADMIN_ACTION: try again on the next duty cycle
            }
            pending.pollFirst();
            inFlight.put(correlationId, put);
            lastIngressNs = System.nanoTime();
            sent++;
        }
        return sent;
    }

    @Override
    public void onMessage(long clusterSessionId, long timestamp, DirectBuffer buffer, int offset, int length, Header header) {
        Put put = inFlight.remove(buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN));
        if (put != null) put.result.complete(null); // the caller's next put is queued from here, on this thread
    }

    /** Puts sent to the old leader may be lost with it: send every unanswered one again, oldest first. */
    @Override
    public void onNewLeader(long clusterSessionId, long leadershipTermId, int leaderMemberId, String ingressEndpoints) {
        requeueInFlight();
    }

    private void requeueInFlight() {
        List<Put> unanswered = new ArrayList<>(inFlight.values());
        inFlight.clear();
        unanswered.sort(Comparator.comparingLong(Put::deadlineNs).reversed());
        for (Put put : unanswered) pending.addFirst(put);
    }

    /** The session is gone (leader lost for too long, session timed out): open a new one. */
    private void reconnect() {
        CloseHelper.quietClose(cluster);
        cluster = null;
        requeueInFlight();
        try {
            cluster = AeronCluster.connect(clusterContext.clone());
        } catch (RuntimeException e) {
            System.err.println("aeron cluster client: reconnect failed: " + e);
        }
    }

    private void expire(long now) {
        TimeoutException timeout = null;
        for (Iterator<Put> it = pending.iterator(); it.hasNext(); ) {
            Put put = it.next();
            if (now - put.deadlineNs >= 0) {
                it.remove();
                put.result.completeExceptionally(timeout == null ? timeout = timeout() : timeout);
            }
        }
        for (Iterator<Put> it = inFlight.values().iterator(); it.hasNext(); ) {
            Put put = it.next();
            if (now - put.deadlineNs >= 0) {
                it.remove();
                put.result.completeExceptionally(timeout == null ? timeout = timeout() : timeout);
            }
        }
    }

    private TimeoutException timeout() {
        return new TimeoutException("put not acknowledged within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
    }

    private void failAll(Throwable failure) {
        for (Put put; (put = submitted.poll()) != null; ) pending.addLast(put);
        pending.forEach(put -> put.result.completeExceptionally(failure));
        pending.clear();
        inFlight.values().forEach(put -> put.result.completeExceptionally(failure));
        inFlight.clear();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        LockSupport.unpark(poller);
        poller.join(TimeUnit.SECONDS.toMillis(30));
        CloseHelper.quietClose(driver);
        AeronSettings.deleteRecursively(aeronDirectory);
    }
}
