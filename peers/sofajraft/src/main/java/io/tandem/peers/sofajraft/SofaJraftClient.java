package io.tandem.peers.sofajraft;

import com.alipay.sofa.jraft.RouteTable;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.CliOptions;
import com.alipay.sofa.jraft.rpc.InvokeCallback;
import com.alipay.sofa.jraft.rpc.RpcClient;
import com.alipay.sofa.jraft.rpc.impl.cli.CliClientServiceImpl;
import com.alipay.sofa.jraft.util.Endpoint;
import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.PeerClient;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends puts to the leader with {@link RpcClient#invokeAsync} over jraft's Bolt client, as jraft's counter example
 * does. The leader is found with {@link RouteTable#refreshLeader} (jraft's CLI {@code GetLeader} RPC to the
 * configured peers) and cached; a node that is not the leader answers with the leader it knows, and the put is
 * re-sent there. A put that has not been acknowledged within {@code timeout-ms} fails.
 *
 * <p>The fast path (a connection to the cached leader exists) sends on the caller's thread without blocking.
 * Everything that may block (finding the leader, opening a connection, which Bolt does synchronously) runs on
 * one background thread, so a completion callback issuing the next put never blocks Bolt's threads.
 */
final class SofaJraftClient implements PeerClient {
    private static final long RETRY_PAUSE_MILLIS = 50;
    private static final int REFRESH_TIMEOUT_MILLIS = 1000;

    private final CliClientServiceImpl cli = new CliClientServiceImpl();
    private final RpcClient rpc;
    private final long timeoutNanos;
    private final ScheduledExecutorService slowPath =
            Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon(true).name("sofajraft-client").unstarted(r));
    private final Set<Put> inFlight = ConcurrentHashMap.newKeySet();
    private volatile Endpoint leader;
    private volatile boolean closed;

    SofaJraftClient(ClientConfig config) throws Exception {
        timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(config.option("timeout-ms", "10000")));
        RouteTable.getInstance().updateConfiguration(SofaJraftReplica.GROUP, SofaJraftReplica.configuration(config.layout()));
        if (!cli.init(new CliOptions())) throw new IllegalStateException("jraft CLI client service did not start");
        rpc = cli.getRpcClient();
        try {
            refreshLeader();
            if (leader == null) throw new IOException("no jraft leader elected yet");
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** One put and its retries. */
    private final class Put implements InvokeCallback {
        final PutRequest request;
        final CompletableFuture<Void> result = new CompletableFuture<>();
        final long deadline = System.nanoTime() + timeoutNanos;
        volatile Endpoint target;

        Put(byte[] key, byte[] value) {
            request = new PutRequest(key.clone(), value.clone());
        }

        @Override
        public void complete(Object response, Throwable error) {
            if (error != null) {
                forgetLeader(target); // unreachable or too slow: look it up again before the retry
                retryLater(this);
            } else if (response instanceof PutResponse answer && answer.committed()) {
                finish(this, null);
            } else if (response instanceof PutResponse answer && answer.notLeader()) {
                Endpoint redirect = parse(answer.redirect());
                if (redirect != null && !redirect.equals(target)) {
                    leader = redirect;
                    onSlowPath(this, 0);
                } else {
                    forgetLeader(target); // election under way: find the new leader after a pause
                    retryLater(this);
                }
            } else {
                String why = response instanceof PutResponse answer ? answer.error() : "unexpected response " + response;
                finish(this, new IOException("jraft put failed: " + why));
            }
        }
    }

    @Override
    public CompletableFuture<Void> put(byte[] key, byte[] value) {
        Put put = new Put(key, value);
        if (closed) {
            put.result.completeExceptionally(new IllegalStateException("client closed"));
            return put.result;
        }
        inFlight.add(put);
        send(put, false);
        return put.result;
    }

    /** Sends {@code put} to the cached leader; {@code mayBlock} is true only on the slow-path thread. */
    private void send(Put put, boolean mayBlock) {
        if (put.result.isDone()) return;
        long remainingNanos = put.deadline - System.nanoTime();
        if (closed || remainingNanos <= 0) {
            finish(put, closed ? new IllegalStateException("client closed")
                    : new TimeoutException("put not acknowledged within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"));
            return;
        }
        Endpoint target = leader;
        if (target == null || (!mayBlock && !rpc.checkConnection(target, false))) {
            if (mayBlock) {
                refreshLeader();
                if (leader == null) {
                    retryLater(put);
                    return;
                }
                target = leader;
            } else {
                onSlowPath(put, 0);
                return;
            }
        }
        put.target = target;
        try {
            rpc.invokeAsync(target, put.request, put, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos)));
        } catch (Exception e) { // RemotingException (cannot connect), InterruptedException (closing)
            forgetLeader(target);
            retryLater(put);
        }
    }

    private void retryLater(Put put) {
        onSlowPath(put, RETRY_PAUSE_MILLIS);
    }

    /** (Re)sends {@code put} from the slow-path thread after {@code delayMillis}. */
    private void onSlowPath(Put put, long delayMillis) {
        try {
            slowPath.schedule(() -> send(put, true), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) { // closed meanwhile
            finish(put, new IllegalStateException("client closed"));
        }
    }

    private void finish(Put put, Throwable failure) {
        inFlight.remove(put);
        if (failure == null) put.result.complete(null);
        else put.result.completeExceptionally(failure);
    }

    /** Asks the configured peers who leads (blocking, at most about a second per peer). */
    private void refreshLeader() {
        RouteTable routes = RouteTable.getInstance();
        try {
            Status status = routes.refreshLeader(cli, SofaJraftReplica.GROUP, REFRESH_TIMEOUT_MILLIS);
            PeerId found = status.isOk() ? routes.selectLeader(SofaJraftReplica.GROUP) : null;
            leader = found == null || found.isEmpty() ? null : found.getEndpoint();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            leader = null;
        }
    }

    private void forgetLeader(Endpoint stale) {
        if (stale != null && stale.equals(leader)) leader = null;
    }

    private static Endpoint parse(String hostPort) {
        if (hostPort == null) return null;
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) return null;
        try {
            return new Endpoint(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public void close() {
        closed = true;
        slowPath.shutdownNow();
        for (Put put : inFlight) finish(put, new IllegalStateException("client closed"));
        cli.shutdown();
    }
}
