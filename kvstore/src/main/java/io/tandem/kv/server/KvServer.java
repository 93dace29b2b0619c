package io.tandem.kv.server;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.api.NodeStoppedException;
import io.tandem.api.NotLeaderException;
import io.tandem.api.OverloadedException;
import io.tandem.api.RequestTimeoutException;
import io.tandem.api.TandemException;
import io.tandem.api.UnavailableException;
import io.tandem.api.UnsupportedRequestException;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvException;
import io.tandem.kv.KvResult;
import io.tandem.kv.KvStateMachine;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.protocols.Protocols;
import io.tandem.runtime.NodeRuntime;
import io.tandem.runtime.RequestAnswer;
import io.tandem.runtime.RuntimeConfig;
import io.tandem.storage.DataDirectoryMismatchException;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.StorageOptions;
import io.tandem.storage.StorageException;
import io.tandem.transport.Endpoint;
import io.tandem.transport.FaultInjectingTransport;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.TcpTransport;
import io.tandem.transport.tcp.TcpTransportConfig;
import io.tandem.transport.tcp.tls.CertificateIdentity;
import io.tandem.transport.tcp.tls.TlsConfigException;
import io.tandem.transport.tcp.tls.TlsMaterial;
import io.netty.handler.ssl.ClientAuth;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a replicated KV store: a {@link KvStateMachine} replicated by the configured
 * protocol over the TCP transport, with durable storage, a client endpoint ({@link ClientWire}),
 * and optionally a Prometheus endpoint.
 *
 * <pre>{@code
 * try (KvServer server = KvServer.start(ServerConfig.load(Path.of("n1.conf"), Map.of()))) {
 *     server.awaitStop();
 * }
 * }</pre>
 *
 * A node whose engine or storage fails stops serving; the server then closes itself, and
 * {@link #awaitStop()} returns the reason, so a supervisor can restart it from its data directory.
 */
public final class KvServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KvServer.class);

    private final ServerConfig config;
    private final long startedAt = System.nanoTime();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final KvCodec codec = new KvStateMachine().codec();
    /** How often the watchdog reads the engine's status, to log role and leader changes and notice a failure. */
    private static final long WATCH_INTERVAL_MILLIS = 100;
    /** How long a status read may wait for the node's loop. */
    private static final long STATUS_TIMEOUT_MILLIS = 2_000;

    private final Protocol protocol;
    /** The sharded store's protocol (its shard map for the status), or null for one replicated store. */
    private final io.tandem.kv.shard.ShardedKvProtocol shardedStore;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private volatile String stopReason;
    private volatile boolean serving;
    private NodeRuntime runtime;
    /**
     * Commands read by the client endpoint's I/O thread (its only user) since its last
     * {@link ClientEndpoint.Handler#endOfReads}: handed to the loop as one input (issue 25).
     */
    private NodeRuntime.SubmitBatch commands;
    private FaultInjectingTransport faults;
    private ClientEndpoint clients;
    private TcpTransport tcpTransport;
    private volatile Map<Path, Long> securityFilesSeen = Map.of();
    /** The client security in force (replaced by {@link #reloadSecurity()}), which the metrics endpoint checks too. */
    private volatile ClientSecurity currentSecurity;
    private MetricsEndpoint metrics;
    private Thread watchdog;

    /** How long a server whose member shut itself down (virtual synchrony) waits before it asks to join again. */
    static final java.time.Duration SERVER_REJOIN = java.time.Duration.ofSeconds(1);

    /**
     * The runtime's {@link RuntimeConfig#quietApply} (raft27): on a member where no client waits (a Raft follower), the
     * KV store's execution thread wakes once per few AppendEntries instead of once per AppendEntries. Safe for this
     * state machine: its results go only to this member's waiting requests (which wake execution at once) and its reply
     * hook; what lags, by at most 5 ms, is the applied index a status shows and snapshot decisions.
     */
    static final java.time.Duration QUIET_APPLY = java.time.Duration.ofMillis(5);

    /** How often the watchdog looks for changed TLS and token files, unless {@link #start(ServerConfig, java.time.Duration)} says otherwise. */
    public static final java.time.Duration DEFAULT_SECURITY_FILE_CHECK = java.time.Duration.ofSeconds(10);
    /** The period of the security file check; the watchdog's poll (100 ms) is its granularity. */
    private final long securityFileCheckNanos;

    private KvServer(ServerConfig config, java.time.Duration securityFileCheck) {
        if (securityFileCheck.isNegative() || securityFileCheck.isZero()) throw new IllegalArgumentException("the security file check period must be positive");
        this.config = config;
        this.securityFileCheckNanos = securityFileCheck.toNanos();
        // The server states its settings in the words every protocol takes (HostSettings); each protocol
        // applies what means something to it. A server is its own supervisor: a member that shut itself
        // down (virtual synchrony on the minority side of a partition, or excluded while paused) asks to
        // join again, as a new process with the state, instead of staying down until someone restarts it.
        Protocol base = Protocols.byName(config.protocol())
                .withEngineOptions(config.engineOptions())
                .withHostSettings(config.protocolSettings().withRestartAfterShutdown(SERVER_REJOIN));
        if (config.shards() > 0) {
            // The sample service on Derecho (issue 23): the keys split into durable shards of the group. The
            // protocol splits its group (Protocol.withShards) or refuses with its reason; the server never
            // asks which engine it runs.
            shardedStore = io.tandem.kv.shard.ShardedKvProtocol.over(base, config.shards(), config.shardReplicas(), io.tandem.kv.KvLimits.DEFAULTS,
                    io.tandem.execution.ExecutorFactory.Limits.DEFAULTS);
            base = shardedStore;
        } else {
            shardedStore = null;
        }
        if (config.deployment() != null) base = base.withDeployment(config.deployment());
        this.protocol = base;
    }

    /**
     * Starts the server: binds the client port and the metrics port, opens storage, starts the
     * node and binds the peer port; nothing is left running if any step fails.
     *
     * @throws ServerStartException with a message naming the port or directory at fault
     */
    public static KvServer start(ServerConfig config) {
        return start(config, DEFAULT_SECURITY_FILE_CHECK);
    }

    /**
     * {@link #start(ServerConfig)} with the period at which the server looks for changed TLS and token files
     * (default {@link #DEFAULT_SECURITY_FILE_CHECK}; {@link #reloadSecurity()} reloads at once). Checked on the
     * watchdog's polls, so a period under 100 ms means every poll.
     */
    public static KvServer start(ServerConfig config, java.time.Duration securityFileCheck) {
        KvServer server = new KvServer(config, securityFileCheck);
        try {
            server.startParts();
        } catch (RuntimeException e) {
            server.closeParts();
            throw e instanceof ServerStartException s ? s : new ServerStartException(config.id() + " could not start: " + e.getMessage(), e);
        }
        return server;
    }

    private void startParts() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        ClientSecurity security;
        TlsMaterial tls;
        Map<Path, Long> timesBeforeLoad = securityFileTimes(); // before the files: see reloadSecurity(Map)
        try {
            tls = loadTls();
            security = clientSecurity(tls);
        } catch (TlsConfigException | ConfigException e) {
            throw new ServerStartException(config.id() + " could not start: " + e.getMessage(), e);
        }
        securityFilesSeen = timesBeforeLoad;
        clients = new ClientEndpoint(config.id(), config.clientAddress(), new ClientEndpoint.Handler() {
            @Override
            public void handle(Request request, ClientEndpoint.Reply reply) {
                KvServer.this.handle(request, reply);
            }

            @Override
            public Response failure(long requestId, Throwable error) {
                return error(requestId, error);
            }

            @Override
            public void endOfReads() {
                NodeRuntime.SubmitBatch batch = commands;
                if (batch != null) batch.flush();
            }
        }, config.maxClientConnections(),
                config.maxRequestsPerConnection(), ClientWire.DEFAULT_MAX_FRAME_BYTES, registry, security);
        try {
            clients.start();
        } catch (IllegalStateException e) {
            if (addressInUse(e)) {
                throw new ServerStartException("cannot listen for clients on " + config.clientAddress() + ": the address is already in use (another server, or another program?)", e);
            }
            throw e;
        }
        currentSecurity = security;
        if (config.metricsPort() != 0) {
            metrics = MetricsEndpoint.start(config.clientAddress().host(), config.metricsPort(), registry,
                    tls == null ? null : tls.jdkServerContext(), this::mayReadMetrics);
        }

        KryoCodec.Builder kryo = KryoCodec.builder();
        protocol.registerMessages(kryo);
        TcpTransportConfig tcpConfig = TcpTransportConfig.defaults().withTls(config.security().tls());
        TcpTransport tcp = new TcpTransport(new TransportSetup(config.cluster(), config.id(), config.members(), kryo.build(), registry), tcpConfig);
        tcpTransport = tcp;
        Transport transport = tcp;
        if (config.faultInjection()) transport = faults = new FaultInjectingTransport(tcp, config.id().value().hashCode() * 0x9E3779B97F4A7C15L);
        FlushPolicy flush = config.fsync() ? FlushPolicy.FSYNC : FlushPolicy.NO_FSYNC;
        // The server's clients route themselves (they follow the leader the redirect names), so a member that cannot
        // order a request says so instead of forwarding it: the client learns the leader and saves a hop next time.
        RuntimeConfig runtimeConfig = RuntimeConfig.DEFAULTS.withRequestTimeout(config.requestTimeout()).withMaxPendingRequests(config.maxPendingRequests())
                .withForwardRequests(false).withQuietApply(QUIET_APPLY);
        if (config.execution() != io.tandem.execution.ExecutionMode.SEQUENTIAL) {
            runtimeConfig = runtimeConfig.withExecutors(io.tandem.execution.ParallelExecutors.of(
                    io.tandem.execution.ParallelOptions.of(config.execution(), config.executionThreads()), registry));
        }
        // The members with their peer addresses, not the bare ids: a member a view removed and a later view
        // adds back (Raft's remove, add-learner) is reconnected at its address. With bare ids the runtime
        // could not (the TCP transport "needs the address"), so a re-added learner never got an entry
        // (issue 16: every promotion after a re-add was refused, match 0, in the Jepsen membership nemesis),
        // and a virtual-synchrony member that rejoins a later view was never reconnected (issue 22).
        NodeRuntime rt = new NodeRuntime(config.id(), config.members(), protocol, transport,
                (events, restorer) -> NodeStorage.open(config.dataDir(), config.cluster(), config.id(), StorageOptions.of(flush).withMetrics(registry), events, restorer),
                stateMachine(config), registry, runtimeConfig);
        // The execution thread writes the replies of each executed batch itself, one write per connection (reply21).
        rt.afterExecutedBatch(clients::endOfExecutedBatch);
        try {
            rt.start();
        } catch (DataDirectoryMismatchException e) {
            transport.close();
            throw new ServerStartException("data directory " + config.dataDir() + " cannot be used by " + config.id() + " of cluster '"
                    + config.cluster() + "': " + e.getMessage(), e);
        } catch (StorageException e) {
            transport.close();
            // The storage's message names the operation and the path that failed, and why.
            throw new ServerStartException("cannot use data directory " + config.dataDir() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(rt);
            if (addressInUse(e)) {
                throw new ServerStartException("cannot listen for peers on " + config.peerAddress() + ": the address is already in use (another server, or another program?)", e);
            }
            throw new ServerStartException(config.id() + " could not start: " + e.getMessage(), e);
        }
        runtime = rt;
        serving = true;
        writePidFile();
        watchdog = Thread.ofPlatform().name("tandem-watchdog-" + config.id()).daemon(true).start(this::watch);
        log.info("{} ready: protocol {}, peers on {}, clients on {}{}, data in {} ({}), cluster '{}'{}{}", config.id(), protocol.name(),
                config.peerAddress(), clients.address(), metrics == null ? "" : ", metrics on " + (config.security().tls() == null ? "http" : "https") + "://" + config.clientAddress().host() + ":" + metrics.port() + "/metrics",
                config.dataDir(), config.fsync() ? "fsync" : "no fsync", config.cluster(), config.faultInjection() ? ", fault injection on" : "",
                config.security().tls() == null ? ", plaintext" : ", TLS on (anonymous clients: " + Role.describe(config.security().anonymousRoles()) + ")");
    }

    /**
     * Reads and checks the TLS files once, before anything listens, so that a missing file, a wrong
     * password, an expired or untrusted certificate, or one for another member is one clear line.
     */
    private TlsMaterial loadTls() {
        SecurityConfig security = config.security();
        if (security.tls() == null) return null;
        TlsMaterial tls = TlsMaterial.load(security.tls());
        CertificateIdentity id = tls.identity();
        if (id.member().isEmpty() || !id.member().get().equals(config.id())) {
            throw new TlsConfigException("TLS certificate " + security.tls().certificateChain() + " is for " + id.describe()
                    + ", not for member " + config.id() + " (its subject alternative names must include " + CertificateIdentity.memberUri(config.id()) + ")");
        }
        return tls;
    }

    /**
     * Reads the TLS files and the client tokens file again and uses them from now on: new member
     * and client connections and new metrics scrapes get the new certificate and trust roots, new token authentications
     * the new tokens; open connections keep what they authenticated with. The server also does
     * this by itself when it sees one of those files change (checked every 10 s). If the new files
     * fail the start-up checks, nothing changes and the exception says why.
     *
     * @throws TlsConfigException or {@link ConfigException} naming the file at fault
     */
    public synchronized void reloadSecurity() {
        reloadSecurity(securityFileTimes());
    }

    /**
     * Loads the files and records {@code timesBeforeLoad} as seen. The times are read before the files, never
     * after: a file replaced while it is being loaded then shows a newer time at the next check and is loaded
     * again, where times read afterwards would mark the new file seen while the old contents are in use (a
     * token added in that window was never picked up).
     */
    private synchronized void reloadSecurity(Map<Path, Long> timesBeforeLoad) {
        TlsMaterial tls = loadTls();
        ClientSecurity security = clientSecurity(tls);
        javax.net.ssl.SSLContext metricsTls = tls != null && metrics != null ? tls.jdkServerContext() : null;
        if (tls != null && tcpTransport != null) tcpTransport.reloadTls();
        if (metricsTls != null) metrics.reloadTls(metricsTls);
        clients.reload(security);
        currentSecurity = security;
        securityFilesSeen = timesBeforeLoad;
        log.info("{}: reloaded its TLS and token files", config.id());
    }

    /** The modification times of the TLS and token files, to notice a change. */
    private Map<Path, Long> securityFileTimes() {
        Map<Path, Long> times = new LinkedHashMap<>();
        SecurityConfig s = config.security();
        List<Path> files = new ArrayList<>();
        if (s.tls() != null) {
            files.add(s.tls().certificateChain());
            if (s.tls().privateKey() != null) files.add(s.tls().privateKey());
            files.add(s.tls().trustedCertificates());
        }
        if (s.clientTokens() != null) files.add(s.clientTokens());
        for (Path f : files) {
            try {
                times.put(f, Files.getLastModifiedTime(f).to(java.util.concurrent.TimeUnit.NANOSECONDS)); // as fine as the file system keeps it
            } catch (IOException e) {
                times.put(f, -1L);
            }
        }
        return times;
    }

    /** Called by the watchdog: reload when a security file changed; a bad new file is logged and the old material kept. */
    private void reloadIfSecurityFilesChanged() {
        Map<Path, Long> now = securityFileTimes();
        if (securityFilesSeen.isEmpty() || now.equals(securityFilesSeen)) return;
        try {
            reloadSecurity(now);
        } catch (RuntimeException e) {
            securityFilesSeen = now; // do not retry the same broken files every check (a later change is seen: newer time)
            log.error("{}: the TLS or token files changed but cannot be used; keeping the previous ones: {}", config.id(), e.getMessage());
        }
    }

    /**
     * The metrics endpoint's rule, the client port's: the read role, from the anonymous roles, a client
     * certificate presented on the HTTPS connection, or a bearer token (the current tokens file).
     */
    private boolean mayReadMetrics(java.security.cert.X509Certificate certificate, String authorization) {
        ClientSecurity s = currentSecurity;
        if (s.anonymousRoles().contains(Role.READ)) return true;
        if (certificate != null && Role.fromNames(io.tandem.transport.tcp.tls.CertificateIdentity.of(certificate).roles()).contains(Role.READ)) return true;
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) return false;
        return s.tokens().find(authorization.substring(7).strip()).map(e -> e.roles().contains(Role.READ)).orElse(false);
    }

    private ClientSecurity clientSecurity(TlsMaterial tls) {
        SecurityConfig security = config.security();
        TokenStore tokens = security.clientTokens() == null ? TokenStore.empty() : TokenStore.load(security.clientTokens());
        if (tls == null && !tokens.isEmpty()) {
            log.warn("{}: client tokens are accepted without TLS: they cross the network in clear text (turn on TLS with tls-dir)", config.id());
        }
        if (tls == null && !security.authenticationRequired() && !isLoopback(config.clientAddress().host())) {
            log.warn("{}: THE CLIENT PORT {} IS REACHABLE BEYOND THIS MACHINE WITHOUT AUTHENTICATION: anyone who can connect may read, write and change "
                    + "the membership. Turn on TLS (tls-dir) and set anonymous-roles (see kvstore/README.md, 'Security').", config.id(), config.clientAddress());
        }
        return new ClientSecurity(tls == null ? null : tls.serverContext(ClientAuth.OPTIONAL), tokens, security.anonymousRoles(),
                security.maxClientConnectionsPerSource(), security.clientIdleTimeout());
    }

    private static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** The configured KV state machine; both speak the same {@link KvCodec} commands, so clients cannot tell them apart. */
    private static io.tandem.statemachine.StateMachine stateMachine(ServerConfig config) {
        return config.stateMachine().equals("hashmap") ? new io.tandem.kv.HashKvStateMachine(io.tandem.kv.KvLimits.DEFAULTS)
                : new KvStateMachine(io.tandem.kv.KvLimits.DEFAULTS, io.tandem.kv.btree.BPlusTree.DEFAULT_ORDER, config.partitioning());
    }

    private static boolean addressInUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.BindException || String.valueOf(t.getMessage()).contains("Address already in use")) return true;
        }
        return false;
    }

    public ServerConfig config() {
        return config;
    }

    /** Where clients connect (the real port if the configured one was 0). */
    public Endpoint clientAddress() {
        return clients.address();
    }

    /** The registry behind the metrics endpoint. */
    public PrometheusMeterRegistry meterRegistry() {
        return registry;
    }

    /** What this node knows now (the answer to a status request); waits at most briefly for the node's loop. */
    public NodeStatus status() {
        return statusAsync().join();
    }

    /**
     * What this node knows now: its engine's {@link EngineStatus} (read on the node's loop) with the
     * server's addresses. Never fails: a node that does not run or does not answer in time reports
     * role UNKNOWN with its applied index.
     */
    public CompletableFuture<NodeStatus> statusAsync() {
        NodeRuntime rt = runtime;
        if (rt == null) return CompletableFuture.completedFuture(toNodeStatus(EngineStatus.UNKNOWN));
        return rt.status().orTimeout(STATUS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .exceptionally(failure -> EngineStatus.UNKNOWN.withAppliedIndex(rt.appliedIndex()))
                .thenApply(this::toNodeStatus);
    }

    private NodeStatus toNodeStatus(EngineStatus s) {
        List<NodeStatus.Member> members = new ArrayList<>();
        for (NodeId m : config.members().keySet()) {
            members.add(new NodeStatus.Member(m.value(), config.members().get(m).toString(), config.clientAddresses().get(m).toString()));
        }
        Map<String, Long> lag = new LinkedHashMap<>();
        s.lag().forEach((peer, behind) -> lag.put(peer.value(), behind));
        String leader = s.leader() == null ? null : s.leader().value();
        String leaderAddress = s.leader() == null ? null : addressOf(s.leader());
        io.tandem.kv.shard.ShardMap shards = shardedStore != null ? shardedStore.shardMap() : io.tandem.kv.shard.ShardMap.NONE;
        return new NodeStatus(config.id().value(), config.cluster(), protocol.name(), s.role().name(), leader, leaderAddress, s.epoch(),
                s.commitIndex(), s.appliedIndex(), names(s.voters()), names(s.learners()), lag, ProcessHandle.current().pid(),
                (System.nanoTime() - startedAt) / 1_000_000, config.faultInjection(), members, shards.viewId(), shards.shards());
    }

    private static List<String> names(List<NodeId> nodes) {
        return nodes.stream().map(NodeId::value).toList();
    }

    /** Blocks until the server is closed, by {@link #close()} or after a failure; returns why, or null after a plain close. */
    public String awaitStop() throws InterruptedException {
        stopped.await();
        return stopReason;
    }

    // ---------------------------------------------------------------------------------- requests

    /**
     * A command (a put, nearly every request under load) is submitted with its reply as the runtime's answer: no
     * future per put (issue 25). Every other request goes through {@link #handle(Request)}'s future.
     */
    private void handle(Request request, ClientEndpoint.Reply reply) {
        if (request instanceof Request.Command c && serving) {
            command(c, reply);
            return;
        }
        handle(request).whenComplete((response, failure) -> reply.send(failure == null ? response
                : new Response.Error(request.requestId(), ErrorCode.INTERNAL, failure.toString())));
    }

    private CompletableFuture<Response> handle(Request request) {
        long id = request.requestId();
        if (!serving) return done(new Response.Error(id, ErrorCode.NODE_STOPPED, config.id() + (closed.get() ? " is shutting down" : " is starting")));
        return switch (request) {
            case Request.Command c -> {
                CompletableFuture<Response> answer = new CompletableFuture<>();
                command(c, new RequestAnswer() {
                    @Override
                    public void completed(io.tandem.statemachine.CommandResult result) {
                        answer.complete(new Response.Result(id, result.encode()));
                    }

                    @Override
                    public void failed(Throwable error) {
                        answer.complete(error(id, error));
                    }
                }, answer::complete);
                yield answer;
            }
            case Request.Query q -> query(q);
            case Request.Status s -> statusAsync().thenApply(status -> new Response.StatusReport(id, status));
            case Request.SetFaultPlan p -> {
                if (faults == null) yield faultInjectionOff(id);
                faults.setPlan(p.plan());
                log.info("{}: fault plan set to {}", config.id(), p.plan());
                yield done(new Response.Done(id));
            }
            case Request.SetClockOffset o -> {
                if (faults == null) yield faultInjectionOff(id);
                runtime.setClockOffset(o.offsetNanos());
                log.info("{}: engine clock offset set to {} ns", config.id(), o.offsetNanos());
                yield done(new Response.Done(id));
            }
            case Request.ChangeMembership m -> changeMembership(m);
            case Request.Authenticate a -> done(new Response.Error(id, ErrorCode.BAD_REQUEST, "authentication is done by the client endpoint"));
        };
    }

    private void command(Request.Command c, ClientEndpoint.Reply reply) {
        command(c, reply, reply::send);
    }

    /** Submits a command answered through {@code answer}; a command refused before submission is answered through {@code refused}. */
    private void command(Request.Command c, RequestAnswer answer, java.util.function.Consumer<Response> refused) {
        try {
            codec.checkCommand(c.command()); // refuse bad bytes before they take a log slot
        } catch (KvException e) {
            refused.accept(new Response.Result(c.requestId(), codec.encode(new KvResult.Failed(e.reason(), e.getMessage()))));
            return;
        }
        if (c.clientId() != 0 && c.sequence() < 1) {
            refused.accept(new Response.Error(c.requestId(), ErrorCode.BAD_REQUEST, "session sequence numbers start at 1, got " + c.sequence()));
            return;
        }
        ClientRequest.Session session = c.clientId() == 0 ? ClientRequest.Session.NONE : new ClientRequest.Session(c.clientId(), c.sequence());
        // On the I/O thread: the command joins this read turn's batch, flushed by endOfReads().
        NodeRuntime.SubmitBatch batch = commands;
        if (batch == null) commands = batch = runtime.newSubmitBatch();
        batch.submit(c.command(), session, answer);
    }

    private CompletableFuture<Response> query(Request.Query q) {
        try {
            codec.decodeQuery(q.query());
        } catch (KvException e) {
            return done(new Response.Result(q.requestId(), codec.encode(new KvResult.Failed(e.reason(), e.getMessage()))));
        }
        return runtime.query(q.query(), q.policy()).handle((result, error) -> answer(q.requestId(), result, error));
    }

    /** Hands the change to the engine as an {@link AdminRequest}; an engine that does not support it is answered UNSUPPORTED, saying so. */
    private CompletableFuture<Response> changeMembership(Request.ChangeMembership m) {
        NodeId node;
        try {
            node = NodeId.of(m.node());
        } catch (IllegalArgumentException e) {
            return done(new Response.Error(m.requestId(), ErrorCode.BAD_REQUEST, "bad node id: " + e.getMessage()));
        }
        if (!config.members().containsKey(node)) {
            return done(new Response.Error(m.requestId(), ErrorCode.REFUSED, node + " is not in the members list of " + config.id()
                    + " (" + config.members().keySet() + "): every node a group may contain must be listed in members"));
        }
        AdminRequest admin = switch (m.change()) {
            case ADD_LEARNER -> new AdminRequest.AddLearner(node);
            case PROMOTE -> new AdminRequest.Promote(node);
            case REMOVE -> new AdminRequest.Remove(node);
            case TRANSFER_LEADERSHIP -> new AdminRequest.TransferLeadership(node);
        };
        log.info("{}: admin request: {} {}", config.id(), admin.operation(), node);
        return runtime.admin(admin).handle((result, error) -> error == null ? new Response.Done(m.requestId()) : error(m.requestId(), error));
    }

    private Response answer(long requestId, byte[] result, Throwable error) {
        return error == null ? new Response.Result(requestId, result) : error(requestId, error);
    }

    private Response error(long requestId, Throwable failure) {
        Throwable e = failure instanceof CompletionException || failure instanceof ExecutionException ? failure.getCause() : failure;
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        return switch (e) {
            case NotLeaderException n -> {
                NodeId hint = n.leaderHint().filter(h -> !h.equals(config.id())).orElse(null);
                yield new Response.Error(requestId, ErrorCode.NOT_LEADER, message, hint == null ? null : hint.value(), hint == null ? null : addressOf(hint));
            }
            case OverloadedException o -> new Response.Error(requestId, ErrorCode.OVERLOADED, message);
            case RequestTimeoutException t -> new Response.Error(requestId, ErrorCode.TIMEOUT, message);
            case UnavailableException u -> new Response.Error(requestId, ErrorCode.UNAVAILABLE, message);
            case UnsupportedRequestException u -> new Response.Error(requestId, ErrorCode.UNSUPPORTED, message);
            case NodeStoppedException s -> new Response.Error(requestId, ErrorCode.NODE_STOPPED, message);
            case TandemException t when runtime.failure() != null -> new Response.Error(requestId, ErrorCode.NODE_STOPPED, message);
            case TandemException t -> new Response.Error(requestId, ErrorCode.REFUSED, message);
            default -> {
                log.warn("{}: request {} failed unexpectedly", config.id(), requestId, e);
                yield new Response.Error(requestId, ErrorCode.INTERNAL, e.toString());
            }
        };
    }

    private String addressOf(NodeId node) {
        Endpoint e = config.clientAddresses().get(node);
        return e == null ? null : e.toString();
    }

    private CompletableFuture<Response> faultInjectionOff(long requestId) {
        return done(new Response.Error(requestId, ErrorCode.UNSUPPORTED, "fault injection is off on " + config.id() + "; start it with fault-injection = true"));
    }

    private static CompletableFuture<Response> done(Response r) {
        return CompletableFuture.completedFuture(r);
    }

    // ---------------------------------------------------------------------------------- lifecycle

    /**
     * Polls the node: stops the server once the node failed, and logs every change of role or leader
     * it sees, so an operator reading one node's log sees each leadership change it took part in.
     */
    private void watch() {
        EngineStatus.Role role = null;
        NodeId leader = null;
        long lastSecurityCheck = System.nanoTime();
        while (!closed.get()) {
            if (System.nanoTime() - lastSecurityCheck >= securityFileCheckNanos) {
                lastSecurityCheck = System.nanoTime();
                reloadIfSecurityFilesChanged();
            }
            Throwable failure = runtime.failure();
            if (failure != null) {
                log.error("{} stops serving after a failure: {}", config.id(), failure.toString());
                stopReason = "the node failed: " + failure.getMessage();
                close();
                return;
            }
            try {
                EngineStatus s = runtime.status().get(STATUS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
                if (s.role() != role || !Objects.equals(s.leader(), leader)) {
                    log.info("{}: {} in epoch {}, leader {}", config.id(), s.role().name().toLowerCase(java.util.Locale.ROOT), s.epoch(),
                            s.leader() == null ? "unknown" : s.leader());
                    role = s.role();
                    leader = s.leader();
                }
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // stopping, or the loop is busy: the next poll tells
            } catch (InterruptedException e) {
                return;
            }
            try {
                Thread.sleep(WATCH_INTERVAL_MILLIS); // a watchdog poll, not a wait for a test condition
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void writePidFile() {
        Path file = config.pidFile();
        if (file == null) return;
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ServerStartException("cannot write the pid file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Graceful stop: no new client connections, the node stops (requests still pending are answered
     * NODE_STOPPED), storage is flushed and closed, connections are closed after their last answers.
     * Idempotent; safe from a shutdown hook.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        log.info("{} stopping", config.id());
        closeParts();
        log.info("{} stopped", config.id());
        stopped.countDown();
    }

    private void closeParts() {
        serving = false;
        if (clients != null) clients.stopAccepting();
        if (runtime != null) closeQuietly(runtime);
        if (clients != null) clients.close();
        if (metrics != null) metrics.close();
        gcMetrics.close();
        if (runtime != null && config.pidFile() != null) {
            try {
                Files.deleteIfExists(config.pidFile());
            } catch (IOException e) {
                log.warn("could not remove the pid file {}: {}", config.pidFile(), e.toString());
            }
        }
        registry.close();
    }

    private void closeQuietly(NodeRuntime rt) {
        try {
            rt.close();
        } catch (RuntimeException e) {
            log.warn("{}: closing the node failed", config.id(), e);
        }
    }
}
