package io.tandem.peers.ratis;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.retry.RequestTypeDependentRetryPolicy;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

/**
 * Apache Ratis 3.3 as a system under test: one {@link RaftServer} per replica with one group of all
 * replicas, a {@link MapStateMachine}, a {@code SegmentedRaftLog} in the replica's data directory, and a
 * {@link RaftClient} whose asynchronous API ({@code client.async().send}) carries the puts.
 *
 * <p>Options ({@code --opt key=value}, on replicas and load alike where it matters):
 * <ul>
 *   <li>{@code rpc=netty|grpc} (default {@value #DEFAULT_RPC}): Ratis' transport; must match on all processes.</li>
 *   <li>{@code election-timeout-min-ms} / {@code election-timeout-max-ms} (default
 *       {@value #DEFAULT_ELECTION_TIMEOUT_MIN_MS} / {@value #DEFAULT_ELECTION_TIMEOUT_MAX_MS}):
 *       {@code raft.server.rpc.timeout.min/max}; the leader's heartbeat interval is half the minimum.</li>
 *   <li>{@code force-sync-num=N}: {@code raft.server.log.force.sync.num}, how many entries one fsync may cover
 *       at most (Ratis' default, 128, when absent).</li>
 *   <li>{@code log-metadata=true|false} (default: Ratis' default, true): {@code raft.server.log.log-metadata.enabled},
 *       whether each server logs a metadata entry when its commit index advances.</li>
 *   <li>{@code read-lock=true|false} (default false): {@code raft.server.log.read.lock.enabled}, whether log
 *       readers take the log's read lock.</li>
 *   <li>{@code client-pool=N} (default: the load's concurrency, one {@link RaftClient} per closed-loop client):
 *       how many {@link RaftClient}s the puts are spread over. A client's {@code async().send} is <em>ordered</em>:
 *       the leader applies one client's requests in the order they were sent, each after the one before, so
 *       one {@link RaftClient} shared by 16 independent closed-loop clients ran them one after another
 *       (63-400 puts/s, p50 34-240 ms: 16 times one commit's latency). Independent clients are independent
 *       {@link RaftClient}s, as a Ratis application would have them.</li>
 * </ul>
 * Each replica uses one port, {@code layout.port(id, 0)}, for server, client and admin traffic.
 */
public final class RatisSystem implements PeerSystem {
    static final String DEFAULT_RPC = "grpc";
    /**
     * Election timeout range, ms. Ratis' own default (150-300 ms) loses the leader whenever a JVM stalls for a
     * few hundred ms, which on a shared 2-core machine happens at every GC under load; 1000-2000 ms is Tandem's
     * Raft default and SOFAJRaft's, so all Raft systems in the benchmark fail over on the same time scale.
     */
    static final long DEFAULT_ELECTION_TIMEOUT_MIN_MS = 1000;
    static final long DEFAULT_ELECTION_TIMEOUT_MAX_MS = 2000;
    /** One group for the benchmark cluster; a fixed id so every process names the same group. */
    static final RaftGroupId GROUP_ID = RaftGroupId.valueOf(UUID.nameUUIDFromBytes("tandem-peers-ratis".getBytes(StandardCharsets.US_ASCII)));
    /** The contract's bound on one put: fail it rather than retry forever. */
    static final long PUT_TIMEOUT_SECONDS = 10;
    static final long RETRY_SLEEP_MILLIS = 100;

    @Override
    public String name() {
        return "ratis";
    }

    static RaftPeerId peerId(int replica) {
        return RaftPeerId.valueOf("r" + replica);
    }

    static RaftGroup group(ClusterLayout layout) {
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < layout.replicas(); i++) {
            peers.add(RaftPeer.newBuilder().setId(peerId(i)).setAddress(layout.host() + ":" + layout.port(i, 0)).build());
        }
        return RaftGroup.valueOf(GROUP_ID, peers);
    }

    static SupportedRpcType rpcType(Map<String, String> options) {
        return switch (options.getOrDefault("rpc", DEFAULT_RPC).toLowerCase(Locale.ROOT)) {
            case "netty" -> SupportedRpcType.NETTY;
            case "grpc" -> SupportedRpcType.GRPC;
            default -> throw new IllegalArgumentException("rpc must be netty or grpc, got '" + options.get("rpc") + "'");
        };
    }

    /** Server settings: the transport, the port, the storage directory and the log's flush policy. */
    static RaftProperties serverProperties(ReplicaConfig config) {
        RaftProperties properties = new RaftProperties();
        SupportedRpcType rpc = rpcType(config.options());
        RaftConfigKeys.Rpc.setType(properties, rpc);
        int port = config.layout().port(config.id(), 0);
        switch (rpc) {
            case NETTY -> {
                NettyConfigKeys.Server.setHost(properties, config.layout().host());
                NettyConfigKeys.Server.setPort(properties, port);
            }
            case GRPC -> {
                GrpcConfigKeys.Server.setHost(properties, config.layout().host());
                GrpcConfigKeys.Server.setPort(properties, port);
            }
            default -> throw new IllegalStateException("unsupported rpc " + rpc);
        }
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, TimeDuration.valueOf(
                Long.parseLong(config.option("election-timeout-min-ms", Long.toString(DEFAULT_ELECTION_TIMEOUT_MIN_MS))), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, TimeDuration.valueOf(
                Long.parseLong(config.option("election-timeout-max-ms", Long.toString(DEFAULT_ELECTION_TIMEOUT_MAX_MS))), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.setStorageDir(properties, List.of(config.dataDir().toFile()));
        // fsync on: Ratis' defaults (unsafe-flush and async-flush off): the log worker forces the segment file
        // before it advances the flush index, and an entry counts towards the commit quorum only once flushed.
        // fsync off: unsafe-flush, where the flush index advances as soon as the entries are written to the file
        // (the page cache); the force still runs, on a background executor nobody waits for. Ratis has no
        // setting that skips the force altogether.
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, !config.fsync());
        RaftServerConfigKeys.Log.setAsyncFlushEnabled(properties, false);
        // Readers of the log (the log appenders, the state machine updater) take the log's fair read/write lock by
        // default; under load a jstack and a JFR of the leader showed them parked on it behind the log worker's
        // writes (27 ms per wait). raft.server.log.read.lock.enabled=false is Ratis' own switch for readers that
        // need no lock (the segmented log's reads are safe without it); --opt read-lock=true restores the default.
        RaftServerConfigKeys.Log.setReadLockEnabled(properties, Boolean.parseBoolean(config.option("read-lock", "false")));
        // Ratis appends a metadata entry (the commit index) to each server's log whenever the commit index advances
        // (raft.server.log.log-metadata.enabled, default true): one more log write per commit batch that no other
        // system in the benchmark makes. --opt log-metadata=false turns it off (Ratis' own switch; the commit index
        // is then relearned from the leader after a restart).
        String logMetadata = config.option("log-metadata", null);
        if (logMetadata != null) RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, Boolean.parseBoolean(logMetadata));
        String forceSyncNum = config.option("force-sync-num", null);
        if (forceSyncNum != null) RaftServerConfigKeys.Log.setForceSyncNum(properties, Integer.parseInt(forceSyncNum));
        return properties;
    }

    @Override
    public Replica startReplica(ReplicaConfig config) throws IOException {
        MapStateMachine stateMachine = new MapStateMachine();
        RaftServer server = RaftServer.newBuilder()
                .setServerId(peerId(config.id()))
                .setGroup(group(config.layout()))
                .setStateMachine(stateMachine)
                .setProperties(serverProperties(config))
                // FORMAT a fresh directory, RECOVER one that holds an earlier run's log.
                .setOption(isEmpty(config.dataDir().toFile()) ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER)
                .build();
        server.start();
        return new RatisReplica(server, stateMachine);
    }

    private static boolean isEmpty(File dir) throws IOException {
        try (Stream<?> entries = Files.list(dir.toPath())) {
            return entries.findAny().isEmpty();
        }
    }

    /** A running Ratis server of the benchmark group. */
    static final class RatisReplica implements Replica {
        private final RaftServer server;
        private final MapStateMachine stateMachine;

        RatisReplica(RaftServer server, MapStateMachine stateMachine) {
            this.server = server;
            this.stateMachine = stateMachine;
        }

        @Override
        public Role role() {
            DivisionInfo info;
            try {
                info = server.getDivision(GROUP_ID).getInfo();
            } catch (IOException e) {
                return Role.OTHER; // the group is not (yet, or any more) served here
            }
            if (info.isLeader()) return Role.LEADER;
            if (info.isFollower()) return Role.FOLLOWER;
            return Role.OTHER;
        }

        MapStateMachine stateMachine() {
            return stateMachine;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @Override
    public PeerClient connect(ClientConfig config) {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, rpcType(config.options()));
        RaftGroup group = group(config.layout());
        return new RatisClient(() -> RaftClient.newBuilder()
                .setRaftGroup(group)
                .setProperties(properties)
                // Ratis retries not-leader and timed-out requests itself and follows the leader hint in the reply.
                // Bound a write's retries by time: once Ratis gives up it closes the client's ordered window, and
                // the adapter replaces the client; unbounded retries would wedge every later put behind it.
                .setRetryPolicy(boundedRetries())
                .build(), Integer.parseInt(config.option("client-pool", Integer.toString(config.concurrency()))));
    }

    /** Retries writes and reads every {@value #RETRY_SLEEP_MILLIS} ms for at most {@value #PUT_TIMEOUT_SECONDS} s in all. */
    static RequestTypeDependentRetryPolicy boundedRetries() {
        RequestTypeDependentRetryPolicy.Builder policy = RequestTypeDependentRetryPolicy.newBuilder();
        for (RaftClientRequestProto.TypeCase type : List.of(RaftClientRequestProto.TypeCase.WRITE, RaftClientRequestProto.TypeCase.READ)) {
            policy.setRetryPolicy(type, RetryPolicies.retryForeverWithSleep(TimeDuration.valueOf(RETRY_SLEEP_MILLIS, TimeUnit.MILLISECONDS)))
                    .setTimeout(type, TimeDuration.valueOf(PUT_TIMEOUT_SECONDS, TimeUnit.SECONDS));
        }
        return policy.build();
    }

    /**
     * Puts through {@code client.async().send}: ordered asynchronous requests in one sliding window, no thread
     * per outstanding put. When a request runs out of retries Ratis fails it and closes the client's sliding
     * window for good (every later request fails with {@link AlreadyClosedException}), so the adapter then
     * replaces the {@link RaftClient}, as an application would after such a failure.
     */
    static final class RatisClient implements PeerClient {
        private final Supplier<RaftClient> factory;
        private final AtomicReferenceArray<RaftClient> pool;
        private final AtomicInteger next = new AtomicInteger();
        /**
         * Completes the puts' futures off Ratis' reply threads. The load driver issues its next put from the
         * completion; issuing {@code async().send} from inside Ratis' own reply handling starved the client
         * (0-20 puts/s against 130-460 puts/s with the same cluster driven from another thread, measured
         * in-process), so completions hop to this one thread first, as an application's own executor would.
         */
        private final ExecutorService completions =
                Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon(true).name("ratis-put-completions").unstarted(r));
        private volatile boolean closed;

        RatisClient(Supplier<RaftClient> factory, int poolSize) {
            if (poolSize < 1) throw new IllegalArgumentException("client-pool must be >= 1, got " + poolSize);
            this.factory = factory;
            this.pool = new AtomicReferenceArray<>(poolSize);
            for (int i = 0; i < poolSize; i++) pool.set(i, factory.get());
        }

        @Override
        public CompletableFuture<Void> put(byte[] key, byte[] value) {
            int slot = Math.floorMod(next.getAndIncrement(), pool.length());
            RaftClient client = pool.get(slot);
            // No orTimeout here: the retry policy already fails a write after PUT_TIMEOUT_SECONDS, and a JDK timeout per
            // put cost the load JVM a delay-queue insertion and removal per put (its ForkJoinPool delayScheduler thread
            // used 7 % of the load JVM's CPU in a jstack sample at 64 clients).
            return client.async().send(Message.valueOf(PutCodec.encode(key, value)))
                    .handleAsync((reply, failure) -> {
                        if (failure != null) {
                            if (closesTheWindow(failure)) replace(slot, client);
                            throw failure instanceof CompletionException c ? c : new CompletionException(failure);
                        }
                        if (!reply.isSuccess()) throw new CompletionException("put failed", reply.getException());
                        return null;
                    }, completions);
        }

        private static boolean closesTheWindow(Throwable failure) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof AlreadyClosedException || t instanceof RaftRetryFailureException) return true;
            }
            return false;
        }

        private void replace(int slot, RaftClient failed) {
            if (closed) return;
            RaftClient fresh = factory.get();
            if (pool.compareAndSet(slot, failed, fresh)) {
                closeQuietly(failed);
            } else {
                closeQuietly(fresh); // another put already replaced it
            }
        }

        private static void closeQuietly(RaftClient client) {
            try {
                client.close();
            } catch (IOException e) {
                System.err.println("ratis: closing a failed client: " + e);
            }
        }

        /** The value of {@code key} as the leader's state machine has it (Ratis' default read option), or null. */
        byte[] get(byte[] key) throws IOException {
            ByteString content = pool.get(0).io().sendReadOnly(Message.valueOf(ByteString.copyFrom(key))).getMessage().getContent();
            return content.isEmpty() ? null : content.toByteArray();
        }

        @Override
        public void close() throws IOException {
            closed = true;
            for (int i = 0; i < pool.length(); i++) closeQuietly(pool.get(i));
            completions.shutdown();
        }
    }
}
