package io.tandem.cli;

import io.tandem.kv.server.ConfigException;
import io.tandem.kv.server.KvServer;
import io.tandem.kv.server.ServerConfig;
import io.tandem.kv.server.ServerStartException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tandem server}: runs one member of a replicated KV store in the foreground until SIGTERM
 * or Ctrl-C, then stops gracefully. Settings come from {@code --config FILE} and the flags (flags
 * win). Exit status: 0 after a clean stop, 1 if the server could not start or failed, 2 for bad
 * flags or a bad config file.
 */
@Command(name = "server", sortOptions = false, mixinStandardHelpOptions = true, description = {
        "Run one member of a replicated key-value store in the foreground; SIGTERM or Ctrl-C stops it gracefully.",
        "Every setting can also come from a config file, one 'key = value' per line, the key being the flag without --. Flags override the file.",
        "Exit status: 0 after a clean stop, 1 if the server could not start or failed, 2 for bad settings."},
        footerHeading = "%nConfig keys and defaults:%n")
final class ServerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "Read settings from FILE ('key = value' lines, # comments).")
    Path config;

    @Option(names = "--id", description = "This node's name; one of the members.")
    String id;

    @Option(names = "--members", paramLabel = "n1=HOST:PORT,...", description = "Every member's peer address, the same list on every node.")
    String members;

    @Option(names = "--client-members", paramLabel = "n1=HOST:PORT,...", description = "Every member's client address (default: peer host, peer port + 1000).")
    String clientMembers;

    @Option(names = "--client-address", paramLabel = "HOST:PORT", description = "Where this node takes client connections (default: its client-members entry).")
    String clientAddress;

    @Option(names = "--client-port", paramLabel = "PORT", description = "Shorthand for --client-address on the peer host.")
    String clientPort;

    @Option(names = "--cluster", description = "Cluster name (default tandem); peers and data directories of another cluster are refused.")
    String cluster;

    @Option(names = "--protocol", description = "Replication protocol (default raft).")
    String protocol;

    @Option(names = "--initial-voters", paramLabel = "n1,n2,...", description = "Raft: the voters of a new group (default: every member); protocols without it refuse it.")
    String initialVoters;

    @Option(names = "--election-timeout-min", paramLabel = "DURATION", description = "Raft, MultiPaxos: lower bound of the election timeout (default: the protocol's, 1s).")
    String electionTimeoutMin;

    @Option(names = "--election-timeout-max", paramLabel = "DURATION", description = "Raft, MultiPaxos: upper bound of the election timeout (default: the protocol's, 2s).")
    String electionTimeoutMax;

    @Option(names = "--snapshot-threshold", paramLabel = "ENTRIES", description = "Raft, MultiPaxos, Copilot: take a snapshot after this many applied commands (default: the protocol's, 10000).")
    String snapshotThreshold;

    @Option(names = "--engine-options", paramLabel = "KEY=VALUE,...", description = "The protocol engine's settings, e.g. max-inflight-messages=4 "
            + "(raft: max-inflight-messages, max-inflight-bytes, max-batch-entries, max-batch-bytes; multipaxos: its engine options); default: the protocol's.")
    String engineOptions;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "This node's data directory (created if missing).")
    String dataDir;

    @Option(names = "--fsync", negatable = true, description = "fsync every write batch (default); --no-fsync survives a process crash but not power loss.")
    Boolean fsync;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve Prometheus metrics on http://CLIENT_HOST:PORT/metrics (https, needing the read role, with TLS on; default 0: off).")
    String metricsPort;

    @Option(names = "--request-timeout", paramLabel = "DURATION", description = "Requests not answered within it fail with TIMEOUT (default 10s).")
    String requestTimeout;

    @Option(names = "--max-pending-requests", paramLabel = "N", description = "Requests in progress on the node before OVERLOADED (default 10000).")
    String maxPendingRequests;

    @Option(names = "--max-client-connections", paramLabel = "N", description = "Client connections accepted (default 1024).")
    String maxClientConnections;

    @Option(names = "--max-requests-per-connection", paramLabel = "N", description = "Unanswered requests per connection before OVERLOADED (default 1024).")
    String maxRequestsPerConnection;

    @Option(names = "--fault-injection", negatable = true, description = "Accept fault-plan and clock-offset admin requests (test clusters only; default off).")
    Boolean faultInjection;

    @Option(names = "--pid-file", paramLabel = "FILE", description = "Write the process id to FILE once ready; removed on a clean exit.")
    String pidFile;

    @Option(names = "--deployment", paramLabel = "FILE", description = "Where the protocol's roles run ('role = n1, n2' lines; multipaxos), the same file on every node (default: every role on every member).")
    String deployment;

    @Option(names = "--tls-dir", paramLabel = "DIR", description = "Turn on TLS with DIR/ca.pem, DIR/<id>.pem and DIR/<id>-key.pem (as 'tandem certs' writes them).")
    String tlsDir;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "This node's certificate chain (PEM), or a .p12 keystore; instead of --tls-dir.")
    String tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "This node's PKCS#8 private key (PEM).")
    String tlsKey;

    @Option(names = "--tls-key-password", paramLabel = "PASSWORD", description = "Password of the key or keystore; env:NAME reads an environment variable.")
    String tlsKeyPassword;

    @Option(names = "--tls-ca", paramLabel = "FILE", description = "PEM file of the CA certificates members and clients must chain to.")
    String tlsCa;

    @Option(names = "--client-tokens", paramLabel = "FILE", description = "Accepted client tokens, 'name roles sha256:<hex>' per line.")
    String clientTokens;

    @Option(names = "--anonymous-roles", paramLabel = "ROLES", description = "Roles of unauthenticated clients: read,write,admin | all | none (default: all without TLS and tokens, else none).")
    String anonymousRoles;

    @Option(names = "--max-client-connections-per-source", paramLabel = "N", description = "Open client connections from one address (default 256).")
    String maxClientConnectionsPerSource;

    @Option(names = "--client-idle-timeout", paramLabel = "DURATION", description = "Close client connections that send nothing for this long (default 5m).")
    String clientIdleTimeout;

    @Option(names = "--execution", paramLabel = "MODE", description = "How commands execute: sequential, psmr or opt-psmr, the same on every node (default: sequential).")
    String execution;

    @Option(names = "--state-machine", paramLabel = "KIND", description = "The KV state machine: btree or hashmap, the same on every node (default: btree).")
    String stateMachine;

    @Option(names = "--threads", paramLabel = "N", description = "Worker threads of a parallel execution, the same on every node (default: 2 with psmr/opt-psmr).")
    String threads;

    @Option(names = "--partition", paramLabel = "SCHEME", description = "Key split among workers: uniform or longs:<max> (default: uniform).")
    String partition;

    @Option(names = "--shards", paramLabel = "N", description = "virtual-synchrony: split the keys into N durable shards of the members (default: one unsharded store).")
    String shards;

    @Option(names = "--shard-replicas", paramLabel = "R", description = "With --shards: the fewest members a shard may have (default: members / shards).")
    String shardReplicas;

    /** The key table for --help, generated from the keys the config actually knows (set by {@link TandemCli#commandLine()}). */
    static String keyTable() {
        StringBuilder s = new StringBuilder();
        for (ServerConfig.Key k : ServerConfig.Key.values()) {
            s.append(String.format("  %-28s %s%n", k.configName(), k.defaultText() == null ? "(required)" : k.defaultText()));
        }
        return s.toString();
    }

    @Override
    public Integer call() throws InterruptedException {
        Logging.configureForServer();
        PrintWriter err = spec.commandLine().getErr();
        ServerConfig cfg;
        try {
            cfg = ServerConfig.load(config, flags());
        } catch (ConfigException e) {
            err.println("tandem server: " + e.getMessage());
            err.flush();
            return 2;
        }
        KvServer server;
        try {
            server = KvServer.start(cfg);
        } catch (ServerStartException e) {
            err.println("tandem server: " + e.getMessage());
            err.flush();
            return 1;
        }
        Thread hook = Thread.ofPlatform().name("tandem-shutdown").unstarted(server::close);
        Runtime.getRuntime().addShutdownHook(hook);
        String failure = server.awaitStop();
        if (failure != null) {
            err.println("tandem server: " + cfg.id() + " stopped: " + failure);
            err.flush();
            return 1;
        }
        return 0;
    }

    private Map<String, String> flags() {
        Map<String, String> f = new LinkedHashMap<>();
        put(f, ServerConfig.Key.ID, id);
        put(f, ServerConfig.Key.MEMBERS, members);
        put(f, ServerConfig.Key.CLIENT_MEMBERS, clientMembers);
        put(f, ServerConfig.Key.CLIENT_ADDRESS, clientAddress);
        put(f, ServerConfig.Key.CLIENT_PORT, clientPort);
        put(f, ServerConfig.Key.CLUSTER, cluster);
        put(f, ServerConfig.Key.PROTOCOL, protocol);
        put(f, ServerConfig.Key.INITIAL_VOTERS, initialVoters);
        put(f, ServerConfig.Key.ELECTION_TIMEOUT_MIN, electionTimeoutMin);
        put(f, ServerConfig.Key.ELECTION_TIMEOUT_MAX, electionTimeoutMax);
        put(f, ServerConfig.Key.SNAPSHOT_THRESHOLD, snapshotThreshold);
        put(f, ServerConfig.Key.ENGINE_OPTIONS, engineOptions);
        put(f, ServerConfig.Key.DATA_DIR, dataDir);
        put(f, ServerConfig.Key.FSYNC, fsync == null ? null : fsync.toString());
        put(f, ServerConfig.Key.METRICS_PORT, metricsPort);
        put(f, ServerConfig.Key.REQUEST_TIMEOUT, requestTimeout);
        put(f, ServerConfig.Key.MAX_PENDING_REQUESTS, maxPendingRequests);
        put(f, ServerConfig.Key.MAX_CLIENT_CONNECTIONS, maxClientConnections);
        put(f, ServerConfig.Key.MAX_REQUESTS_PER_CONNECTION, maxRequestsPerConnection);
        put(f, ServerConfig.Key.FAULT_INJECTION, faultInjection == null ? null : faultInjection.toString());
        put(f, ServerConfig.Key.PID_FILE, pidFile);
        put(f, ServerConfig.Key.DEPLOYMENT, deployment);
        put(f, ServerConfig.Key.TLS_DIR, tlsDir);
        put(f, ServerConfig.Key.TLS_CERT, tlsCert);
        put(f, ServerConfig.Key.TLS_KEY, tlsKey);
        put(f, ServerConfig.Key.TLS_KEY_PASSWORD, tlsKeyPassword);
        put(f, ServerConfig.Key.TLS_CA, tlsCa);
        put(f, ServerConfig.Key.CLIENT_TOKENS, clientTokens);
        put(f, ServerConfig.Key.ANONYMOUS_ROLES, anonymousRoles);
        put(f, ServerConfig.Key.MAX_CLIENT_CONNECTIONS_PER_SOURCE, maxClientConnectionsPerSource);
        put(f, ServerConfig.Key.CLIENT_IDLE_TIMEOUT, clientIdleTimeout);
        put(f, ServerConfig.Key.EXECUTION, execution);
        put(f, ServerConfig.Key.STATE_MACHINE, stateMachine);
        put(f, ServerConfig.Key.THREADS, threads);
        put(f, ServerConfig.Key.PARTITION, partition);
        put(f, ServerConfig.Key.SHARDS, shards);
        put(f, ServerConfig.Key.SHARD_REPLICAS, shardReplicas);
        return f;
    }

    private static void put(Map<String, String> flags, ServerConfig.Key key, String value) {
        if (value != null) flags.put(key.configName(), value);
    }
}
