package io.tandem.kv.server;

import io.tandem.kv.DurationText;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.roles.Deployment;
import io.tandem.roles.RoleCatalog;
import io.tandem.engine.HostSettings;
import io.tandem.engine.Protocol;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.tls.TlsConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Everything a KV server needs, validated. Build it with {@link #load}: settings come from a config
 * file (one {@code key = value} per line, {@code #} starts a comment line) and from flags, which win;
 * {@link Key} lists every key with its default.
 *
 * @param members          every member's peer address, in a stable order (the same list on every member)
 * @param clientAddresses  every member's client address; this node's entry is where it listens for clients
 * @param protocolSettings the election timeout, snapshot threshold and initial voters as set (unset ones
 *                         keep the protocol's own), applied through {@link io.tandem.engine.Protocol#withHostSettings}
 *                         and checked against the protocol when the config is loaded
 * @param metricsPort      Prometheus scrape port on the client address's host; 0 turns the endpoint off
 * @param faultInjection   accept the fault-plan and clock-offset admin requests (test clusters only)
 * @param pidFile          written once the server is ready, removed on a clean exit; null for none
 * @param deployment       where the protocol's roles run (protocols with roles, e.g. multipaxos), read
 *                         from the {@code deployment} file and checked against the members; null for
 *                         the protocol's default
 * @param security         TLS, client authentication and client connection limits
 * @param execution        how the KV state machine executes ordered commands: sequential, psmr or
 *                         opt-psmr (the same on every node)
 * @param executionThreads workers of a parallel mode (1 for sequential), the same on every node
 * @param partitioning     how keys are split among the workers (the same on every node)
 * @param shards           virtual-synchrony only: how many shards the keys are split into over the group's
 *                         members (issue 23, derecho.md §1.3); 0 for an unsharded store
 * @param shardReplicas    the fewest members a shard may have (its replication factor); 0 when unsharded
 * @param stateMachine     the KV state machine: {@code btree} (ordered, the default) or {@code hashmap} (the
 *                         Compartmentalization paper's hash map, sequential execution only; the same on every node)
 * @param engineOptions    the protocol engine's settings by name ({@link io.tandem.engine.Protocol#withEngineOptions}, e.g.
 *                         Raft's {@code max-inflight-messages}), checked against the protocol when the config is loaded;
 *                         empty for the protocol's own
 */
public record ServerConfig(
        NodeId id,
        Map<NodeId, Endpoint> members,
        Map<NodeId, Endpoint> clientAddresses,
        String cluster,
        String protocol,
        io.tandem.engine.HostSettings protocolSettings,
        Path dataDir,
        boolean fsync,
        int metricsPort,
        Duration requestTimeout,
        int maxPendingRequests,
        int maxClientConnections,
        int maxRequestsPerConnection,
        boolean faultInjection,
        Path pidFile,
        Deployment deployment,
        SecurityConfig security,

        io.tandem.execution.ExecutionMode execution,
        int executionThreads,
        io.tandem.kv.KeyPartitioning partitioning,
        int shards,
        int shardReplicas,
        String stateMachine,
        Map<String, String> engineOptions) {

    /** Every setting: its name in config files (the flag is {@code --name}), its default and meaning. */
    public enum Key {
        ID("id", null, "this node's name; one of the members"),
        MEMBERS("members", null, "every member as name=host:port (peer address), comma-separated, the same on every node"),
        CLIENT_MEMBERS("client-members", "peer host, peer port + 1000", "every member's client address as name=host:port"),
        CLIENT_ADDRESS("client-address", "this node's entry of client-members", "host:port this node takes client connections on"),
        CLIENT_PORT("client-port", "none", "shorthand for client-address on the peer host"),
        CLUSTER("cluster", "tandem", "cluster name; peers and data directories of another cluster are refused"),
        PROTOCOL("protocol", "raft", "replication protocol: " + String.join(", ", Protocols.names())),
        INITIAL_VOTERS("initial-voters", "every member", takenBy(HostSettings.Kind.INITIAL_VOTERS) + "voters of a new group, comma-separated; others join by membership change"),
        ELECTION_TIMEOUT_MIN("election-timeout-min", "the protocol's (1s)", takenBy(HostSettings.Kind.ELECTION_TIMEOUT) + "lower bound of the randomized election timeout (at least 2 heartbeats of 100ms)"),
        ELECTION_TIMEOUT_MAX("election-timeout-max", "the protocol's (2s)", takenBy(HostSettings.Kind.ELECTION_TIMEOUT) + "upper bound of the randomized election timeout"),
        SNAPSHOT_THRESHOLD("snapshot-threshold", "the protocol's (10000)",
                takenBy(HostSettings.Kind.SNAPSHOT_THRESHOLD) + "take a snapshot after this many commands were applied since the last one (the log is kept in memory until then)"),
        ENGINE_OPTIONS("engine-options", "none (the protocol's own)", "engine settings as key=value, comma-separated, the same on every node; raft: "
                + String.join(", ", io.tandem.protocols.raft.RaftProtocol.ENGINE_OPTIONS.keySet()) + "; multipaxos: "
                + String.join(", ", io.tandem.protocols.multipaxos.MultiPaxosProtocol.ENGINE_OPTIONS.keySet())),
        DATA_DIR("data-dir", null, "directory of this node's log, metadata and snapshots"),
        FSYNC("fsync", "true", "fsync every write batch; false survives a process crash but not power loss"),
        METRICS_PORT("metrics-port", "0 (off)", "port of the Prometheus endpoint (/metrics) on the client host"),
        REQUEST_TIMEOUT("request-timeout", "10s", "a request not answered within it fails with TIMEOUT"),
        MAX_PENDING_REQUESTS("max-pending-requests", "10000", "requests in progress on the node; more are refused with OVERLOADED"),
        MAX_CLIENT_CONNECTIONS("max-client-connections", "1024", "open client connections; more are closed at once"),
        MAX_REQUESTS_PER_CONNECTION("max-requests-per-connection", "1024", "unanswered requests per connection; more are refused with OVERLOADED"),
        FAULT_INJECTION("fault-injection", "false", "accept fault-plan and clock-offset admin requests (test clusters only)"),
        PID_FILE("pid-file", "none", "file to write the process id to once ready; removed on a clean exit"),
        DEPLOYMENT("deployment", "every role on every member", "file placing the protocol's roles on members ('role = n1, n2' lines; multipaxos), the same on every node"),
        TLS_DIR("tls-dir", "none (plaintext)", "directory of ca.pem, <id>.pem and <id>-key.pem (as tandem certs writes them): mutual TLS between members, TLS for clients"),
        TLS_CERT("tls-cert", "none", "this node's certificate chain (PEM), or a PKCS#12 keystore (.p12) holding key and chain; instead of tls-dir"),
        TLS_KEY("tls-key", "none", "this node's PKCS#8 private key (PEM); not with a .p12 tls-cert"),
        TLS_KEY_PASSWORD("tls-key-password", "none", "password of an encrypted key or of the .p12 keystore; env:NAME reads it from that environment variable"),
        TLS_CA("tls-ca", "none", "PEM file of the CA certificates peers and clients must chain to"),
        CLIENT_TOKENS("client-tokens", "none", "file of accepted client tokens, 'name roles sha256:<hex>' per line (tandem certs writes one)"),
        ANONYMOUS_ROLES("anonymous-roles", "all without tls and tokens, else none", "roles of a client with neither certificate nor token: read, write, admin, all or none"),
        MAX_CLIENT_CONNECTIONS_PER_SOURCE("max-client-connections-per-source", "256", "open client connections from one address; more are closed at once"),
        CLIENT_IDLE_TIMEOUT("client-idle-timeout", "5m", "a client connection that sends nothing for this long is closed"),
        EXECUTION("execution", "sequential", "how commands execute: sequential, psmr (P-SMR) or opt-psmr (optimistic P-SMR), the same on every node"),
        THREADS("threads", "1, or 2 with a parallel execution", "worker threads of a parallel execution, the same on every node"),
        PARTITION("partition", "uniform", "how keys are split among workers: uniform (first 8 key bytes) or longs:<max> (8-byte big-endian keys in [0, max])"),
        SHARDS("shards", "none (one replicated store)", "virtual-synchrony: split the keys (by hash) into this many shards, each a durable subgroup of the members, the same on every node"),
        SHARD_REPLICAS("shard-replicas", "members / shards", "virtual-synchrony with shards: the fewest members a shard may have; shards x shard-replicas must not exceed the members"),
        STATE_MACHINE("state-machine", "btree", "the KV state machine: btree (ordered B+-tree) or hashmap (a hash map, as in the Compartmentalization paper; sequential execution, slow scans), the same on every node");

        private final String name;
        private final String defaultText;
        private final String description;

        Key(String name, String defaultText, String description) {
            this.name = name;
            this.defaultText = defaultText;
            this.description = description;
        }

        public String configName() {
            return name;
        }

        /** The default as documentation text; null for a required key. */
        public String defaultText() {
            return defaultText;
        }

        public String description() {
            return description;
        }

        /** "raft, multipaxos: " for a setting those protocols take (the registry says which). */
        private static String takenBy(HostSettings.Kind kind) {
            List<String> names = new java.util.ArrayList<>();
            for (String p : Protocols.names()) if (Protocols.byName(p).hostSettings().contains(kind)) names.add(p);
            return String.join(", ", names) + ": ";
        }

        static Key byName(String name) {
            for (Key k : values()) if (k.name.equals(name)) return k;
            return null;
        }
    }

    /** The port offset from a member's peer port to its default client port. */
    public static final int CLIENT_PORT_OFFSET = 1000;

    public ServerConfig {
        Objects.requireNonNull(id, "id");
        members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
        clientAddresses = Collections.unmodifiableMap(new LinkedHashMap<>(clientAddresses));
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(protocolSettings, "protocolSettings");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (!members.containsKey(id)) throw new IllegalArgumentException(id + " is not among the members " + members.keySet());
        if (!clientAddresses.keySet().equals(members.keySet())) throw new IllegalArgumentException("client addresses " + clientAddresses.keySet() + " do not match the members " + members.keySet());
        Objects.requireNonNull(security, "security");
        engineOptions = Collections.unmodifiableMap(new LinkedHashMap<>(engineOptions));
        if (shards < 0 || shardReplicas < 0 || (shards == 0) != (shardReplicas == 0)) throw new IllegalArgumentException("shards " + shards + " and shard replicas " + shardReplicas + " must both be 0 or both positive");
    }

    public Endpoint peerAddress() {
        return members.get(id);
    }

    public Endpoint clientAddress() {
        return clientAddresses.get(id);
    }

    /**
     * Reads {@code configFile} (may be null) and applies {@code flags} (config key to value, as given
     * on the command line) over it.
     *
     * @throws ConfigException naming the key and the file line or flag of the first problem
     */
    public static ServerConfig load(Path configFile, Map<String, String> flags) {
        Map<Key, Setting> settings = new LinkedHashMap<>();
        if (configFile != null) readFile(configFile, settings);
        flags.forEach((name, value) -> {
            Key key = Key.byName(name);
            if (key == null) throw new IllegalArgumentException("no config key '" + name + "'");
            settings.put(key, new Setting(value, "--" + name));
        });
        return new Resolver(settings, configFile).resolve();
    }

    /** A value and where it came from, for error messages. */
    private record Setting(String value, String origin) {}

    private static void readFile(Path file, Map<Key, Setting> settings) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            String where = file + " line " + (i + 1);
            if (line.isEmpty() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            if (eq < 0) throw new ConfigException(where + ": expected 'key = value', found '" + line + "'");
            String name = line.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(eq + 1).strip();
            Key key = Key.byName(name);
            if (key == null) throw new ConfigException(where + ": unknown key '" + name + "'; known keys: " + knownKeys());
            if (value.isEmpty()) throw new ConfigException(where + ": key '" + name + "' has no value");
            Setting earlier = settings.put(key, new Setting(value, where));
            if (earlier != null) throw new ConfigException(where + ": key '" + name + "' is set again (first at " + earlier.origin() + ")");
        }
    }

    private static String knownKeys() {
        StringBuilder s = new StringBuilder();
        for (Key k : Key.values()) s.append(s.isEmpty() ? "" : ", ").append(k.name);
        return s.toString();
    }

    /** Turns the raw settings into a config, one key at a time, with errors that name the key and its origin. */
    private static final class Resolver {
        private final Map<Key, Setting> settings;
        private final Path configFile;

        Resolver(Map<Key, Setting> settings, Path configFile) {
            this.settings = settings;
            this.configFile = configFile;
        }

        ServerConfig resolve() {
            NodeId id = required(Key.ID, NodeId::of);
            Map<NodeId, Endpoint> members = required(Key.MEMBERS, Resolver::memberList);
            if (!members.containsKey(id)) fail(Key.MEMBERS, "does not list this node's id '" + id + "' (members: " + names(members.keySet()) + ")");
            Map<NodeId, Endpoint> clients = optional(Key.CLIENT_MEMBERS, Resolver::memberList, null);
            if (clients == null) {
                clients = new LinkedHashMap<>();
                for (var e : members.entrySet()) clients.put(e.getKey(), derivedClientAddress(e.getKey(), e.getValue()));
            } else if (!clients.keySet().equals(members.keySet())) {
                fail(Key.CLIENT_MEMBERS, "lists " + names(clients.keySet()) + " but the members are " + names(members.keySet()));
            }
            Endpoint own = optional(Key.CLIENT_ADDRESS, Endpoint::parse, null);
            Integer port = optional(Key.CLIENT_PORT, Resolver::port, null);
            if (own != null && port != null) fail(Key.CLIENT_PORT, "conflicts with client-address (" + settings.get(Key.CLIENT_ADDRESS).origin() + "); give one of them");
            if (port != null) own = new Endpoint(members.get(id).host(), port);
            if (own != null) clients.put(id, own);
            Endpoint peer = members.get(id);
            if (clients.get(id).port() == peer.port() && sameHost(clients.get(id).host(), peer.host())) {
                fail(settings.containsKey(Key.CLIENT_PORT) ? Key.CLIENT_PORT : Key.CLIENT_ADDRESS, "client address " + clients.get(id) + " is the peer address; pick another port");
            }
            String protocol = optional(Key.PROTOCOL, Resolver::protocol, "raft");
            Set<NodeId> voters = optional(Key.INITIAL_VOTERS, Resolver::nodeSet, Set.of());
            for (NodeId v : voters) if (!members.containsKey(v)) fail(Key.INITIAL_VOTERS, "names " + v + ", which is not a member");
            Duration electionMin = optional(Key.ELECTION_TIMEOUT_MIN, Resolver::positiveDuration, null);
            Duration electionMax = optional(Key.ELECTION_TIMEOUT_MAX, Resolver::positiveDuration, null);
            Integer snapshotThreshold = optional(Key.SNAPSHOT_THRESHOLD, Resolver::positiveInt, null);
            HostSettings protocolSettings = protocolSettings(protocol, voters, electionMin, electionMax, snapshotThreshold);
            Map<String, String> engineOptions = optional(Key.ENGINE_OPTIONS, Resolver::keyValues, Map.of());
            try {
                Protocols.byName(protocol).withEngineOptions(engineOptions);
            } catch (IllegalArgumentException e) {
                fail(Key.ENGINE_OPTIONS, "does not fit the " + protocol + " protocol: " + e.getMessage());
            }
            Deployment deployment = optional(Key.DEPLOYMENT, file -> deployment(file, protocol, List.copyOf(members.keySet())), null);
            int metricsPort = optional(Key.METRICS_PORT, Resolver::portOrZero, 0);
            io.tandem.execution.ExecutionMode execution = optional(Key.EXECUTION, Resolver::executionMode, io.tandem.execution.ExecutionMode.SEQUENTIAL);
            int threads = optional(Key.THREADS, Resolver::positiveInt, execution == io.tandem.execution.ExecutionMode.SEQUENTIAL ? 1 : 2);
            if (execution == io.tandem.execution.ExecutionMode.SEQUENTIAL && threads != 1) fail(Key.THREADS, "must be 1 with the sequential execution (set execution = psmr or opt-psmr)");
            if (threads > io.tandem.execution.ParallelStateMachine.MAX_THREADS) fail(Key.THREADS, "must be at most " + io.tandem.execution.ParallelStateMachine.MAX_THREADS);
            if (metricsPort != 0 && metricsPort == clients.get(id).port()) fail(Key.METRICS_PORT, "is the client port " + metricsPort);
            String stateMachine = optional(Key.STATE_MACHINE, Resolver::stateMachine, "btree");
            if (stateMachine.equals("hashmap") && execution != io.tandem.execution.ExecutionMode.SEQUENTIAL) fail(Key.STATE_MACHINE, "hashmap runs with the sequential execution only, not " + execution.text());
            int shards = optional(Key.SHARDS, Resolver::positiveInt, 0);
            int shardReplicas = optional(Key.SHARD_REPLICAS, Resolver::positiveInt, 0);
            if (shards == 0 && shardReplicas != 0) fail(Key.SHARD_REPLICAS, "needs shards too");
            if (shards != 0) {
                // The protocol says whether it can split its group into shards (Protocol.withShards), and why not.
                java.util.Optional<String> refused = Protocols.byName(protocol).shardingRefused();
                if (refused.isPresent()) fail(Key.SHARDS, "needs a protocol that splits its group into shards: " + refused.get());
                if (stateMachine.equals("hashmap")) fail(Key.STATE_MACHINE, "hashmap cannot be combined with shards (each shard runs the B+-tree)");
                if (execution != io.tandem.execution.ExecutionMode.SEQUENTIAL) fail(Key.SHARDS, "runs each shard's commands in the shard's order; it cannot be combined with execution = " + execution.text());
                if (shardReplicas == 0) shardReplicas = Math.max(1, members.size() / shards);
                try {
                    io.tandem.kv.shard.ShardedKvProtocol.check(shards, shardReplicas, members.size());
                } catch (IllegalArgumentException e) {
                    fail(settings.containsKey(Key.SHARD_REPLICAS) ? Key.SHARD_REPLICAS : Key.SHARDS, "is impossible: " + e.getMessage());
                }
            }
            return new ServerConfig(
                    id, members, clients,
                    optional(Key.CLUSTER, Resolver::clusterName, "tandem"),
                    protocol,
                    protocolSettings,
                    required(Key.DATA_DIR, Path::of),
                    optional(Key.FSYNC, Resolver::bool, true),
                    metricsPort,
                    optional(Key.REQUEST_TIMEOUT, Resolver::positiveDuration, Duration.ofSeconds(10)),
                    optional(Key.MAX_PENDING_REQUESTS, Resolver::positiveInt, 10_000),
                    optional(Key.MAX_CLIENT_CONNECTIONS, Resolver::positiveInt, 1024),
                    optional(Key.MAX_REQUESTS_PER_CONNECTION, Resolver::positiveInt, 1024),
                    optional(Key.FAULT_INJECTION, Resolver::bool, false),
                    optional(Key.PID_FILE, Path::of, null),
                    deployment,
                    security(id),
                    execution,
                    threads,
                    optional(Key.PARTITION, Resolver::partitioning, io.tandem.kv.KeyPartitioning.uniformPrefix()),
                    shards,
                    shardReplicas,
                    stateMachine,
                    engineOptions);
        }

        /**
         * The protocol settings as set, checked against the protocol itself: one it has no equivalent
         * for, or a value outside its valid range there, is refused naming the key.
         */
        private HostSettings protocolSettings(String protocol, Set<NodeId> voters, Duration electionMin, Duration electionMax, Integer snapshotThreshold) {
            Protocol p = Protocols.byName(protocol);
            Map<HostSettings.Kind, Key> keyOf = Map.of(
                    HostSettings.Kind.INITIAL_VOTERS, Key.INITIAL_VOTERS,
                    HostSettings.Kind.ELECTION_TIMEOUT, settings.containsKey(Key.ELECTION_TIMEOUT_MIN) ? Key.ELECTION_TIMEOUT_MIN : Key.ELECTION_TIMEOUT_MAX,
                    HostSettings.Kind.SNAPSHOT_THRESHOLD, Key.SNAPSHOT_THRESHOLD);
            HostSettings s;
            try {
                s = new HostSettings(electionMin, electionMax, snapshotThreshold == null ? null : snapshotThreshold.longValue(), voters, null);
            } catch (IllegalArgumentException e) {
                fail(keyOf.get(HostSettings.Kind.ELECTION_TIMEOUT), "does not fit: " + e.getMessage());
                throw new AssertionError(e);
            }
            for (HostSettings.Kind kind : s.given()) {
                if (!p.hostSettings().contains(kind)) {
                    String takes = p.hostSettings().isEmpty() ? "none of election-timeout, snapshot-threshold, initial-voters"
                            : java.util.EnumSet.copyOf(p.hostSettings()).stream().map(HostSettings.Kind::settingName).collect(java.util.stream.Collectors.joining(", "));
                    fail(keyOf.get(kind), "is not a setting of the " + protocol + " protocol (it takes " + takes + ")");
                }
            }
            try {
                p.withHostSettings(s);
            } catch (IllegalArgumentException e) {
                Key key = s.given().contains(HostSettings.Kind.ELECTION_TIMEOUT) ? keyOf.get(HostSettings.Kind.ELECTION_TIMEOUT)
                        : s.given().contains(HostSettings.Kind.SNAPSHOT_THRESHOLD) ? Key.SNAPSHOT_THRESHOLD : Key.PROTOCOL;
                fail(key, "does not fit the " + protocol + " protocol: " + e.getMessage());
            }
            return s;
        }

        /** The TLS files (tls-dir, or tls-cert with tls-key and tls-ca), tokens and client limits; files are checked when the server starts. */
        private SecurityConfig security(NodeId id) {
            TlsConfig tls = null;
            Path dir = optional(Key.TLS_DIR, Path::of, null);
            Path cert = optional(Key.TLS_CERT, Path::of, null);
            Path key = optional(Key.TLS_KEY, Path::of, null);
            Path ca = optional(Key.TLS_CA, Path::of, null);
            String password = optional(Key.TLS_KEY_PASSWORD, Resolver::secret, null);
            if (dir != null) {
                for (Key k : List.of(Key.TLS_CERT, Key.TLS_KEY, Key.TLS_CA)) {
                    if (settings.containsKey(k)) fail(k, "conflicts with tls-dir (" + settings.get(Key.TLS_DIR).origin() + "); give one or the other");
                }
                tls = TlsConfig.fromDirectory(dir, id.value()).withKeyPassword(password);
            } else if (cert != null || key != null || ca != null) {
                if (cert == null) fail(settings.containsKey(Key.TLS_KEY) ? Key.TLS_KEY : Key.TLS_CA, "needs tls-cert too");
                if (ca == null) fail(Key.TLS_CERT, "needs tls-ca too (the CA certificates peers must chain to)");
                if (key == null && !cert.getFileName().toString().matches("(?i).*\\.(p12|pfx)")) fail(Key.TLS_CERT, "is not a .p12 keystore, so it needs tls-key too");
                if (key != null && cert.getFileName().toString().matches("(?i).*\\.(p12|pfx)")) fail(Key.TLS_KEY, "is not used with a .p12 tls-cert (the keystore holds the key)");
                tls = new TlsConfig(cert, key, password, ca);
            } else if (password != null) {
                fail(Key.TLS_KEY_PASSWORD, "is set but TLS is not (set tls-dir, or tls-cert and tls-ca)");
            }
            Path tokens = optional(Key.CLIENT_TOKENS, Path::of, null);
            boolean secured = tls != null || tokens != null;
            Set<Role> anonymous = optional(Key.ANONYMOUS_ROLES, Role::parseSet, secured ? java.util.EnumSet.noneOf(Role.class) : java.util.EnumSet.allOf(Role.class));
            return new SecurityConfig(tls, tokens, anonymous,
                    optional(Key.MAX_CLIENT_CONNECTIONS_PER_SOURCE, Resolver::positiveInt, SecurityConfig.DEFAULT_MAX_CONNECTIONS_PER_SOURCE),
                    optional(Key.CLIENT_IDLE_TIMEOUT, Resolver::positiveDuration, SecurityConfig.DEFAULT_IDLE_TIMEOUT));
        }

        /** A secret given as is, or as env:NAME (kept out of config files and process listings). */
        static String secret(String text) {
            if (!text.startsWith("env:")) return text;
            String value = System.getenv(text.substring(4));
            if (value == null) throw new IllegalArgumentException("environment variable " + text.substring(4) + " is not set");
            return value;
        }

        private Endpoint derivedClientAddress(NodeId node, Endpoint peer) {
            int port = peer.port() + CLIENT_PORT_OFFSET;
            if (port > 65535) fail(Key.MEMBERS, "member " + node + " has peer port " + peer.port() + "; its default client port " + port + " is out of range, so set client-members");
            return new Endpoint(peer.host(), port);
        }

        private <T> T required(Key key, Function<String, T> parse) {
            if (!settings.containsKey(key)) {
                throw new ConfigException("missing setting '" + key.name + "' (" + key.description + "): pass --" + key.name
                        + (configFile == null ? " or --config FILE" : " or add '" + key.name + " = ...' to " + configFile));
            }
            return optional(key, parse, null);
        }

        private <T> T optional(Key key, Function<String, T> parse, T fallback) {
            Setting s = settings.get(key);
            if (s == null) return fallback;
            try {
                return parse.apply(s.value());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(s.origin() + ": " + key.name + ": " + e.getMessage());
            }
        }

        private void fail(Key key, String problem) {
            Setting s = settings.get(key);
            throw new ConfigException((s == null ? "" : s.origin() + ": ") + key.name + " " + problem);
        }

        static Map<NodeId, Endpoint> memberList(String text) {
            Map<NodeId, Endpoint> out = new LinkedHashMap<>();
            for (String item : text.split(",")) {
                String m = item.strip();
                if (m.isEmpty()) continue;
                int eq = m.indexOf('=');
                if (eq <= 0) throw new IllegalArgumentException("'" + m + "' is not name=host:port");
                NodeId node = NodeId.of(m.substring(0, eq).strip());
                Endpoint at = Endpoint.parse(m.substring(eq + 1).strip());
                if (out.containsKey(node)) throw new IllegalArgumentException("member " + node + " is listed twice");
                for (var e : out.entrySet()) {
                    if (e.getValue().equals(at)) throw new IllegalArgumentException("members " + e.getKey() + " and " + node + " have the same address " + at);
                }
                if (out.put(node, at) != null) throw new IllegalArgumentException("member " + node + " is listed twice");
            }
            if (out.isEmpty()) throw new IllegalArgumentException("lists no member");
            return out;
        }

        /** {@code key=value} items, comma-separated, blank items skipped ({@link io.tandem.protocols.EngineOptions#parse}). */
        static Map<String, String> keyValues(String text) {
            return io.tandem.protocols.EngineOptions.parse(java.util.Arrays.stream(text.split(",")).map(String::strip).filter(t -> !t.isEmpty()).toList());
        }

        static Set<NodeId> nodeSet(String text) {
            Set<NodeId> out = new LinkedHashSet<>();
            for (String item : text.split(",")) if (!item.isBlank()) out.add(NodeId.of(item.strip()));
            return out;
        }

        /** Reads and checks a deployment file for {@code protocol} on {@code members}. */
        static Deployment deployment(String file, String protocol, List<NodeId> members) {
            RoleCatalog roles = Protocols.byName(protocol).roles()
                    .orElseThrow(() -> new IllegalArgumentException(protocol + " runs one engine per member and takes no deployment file"));
            Deployment d = Deployment.read(Path.of(file), roles);
            d.resolve(members);
            return d;
        }

        static String protocol(String name) {
            Protocols.byName(name); // refuses unknown names with the list of known ones
            return name;
        }

        static String clusterName(String name) {
            if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) throw new IllegalArgumentException("'" + name + "' is not a cluster name (letters, digits, . _ -; at most 64)");
            return name;
        }

        static String stateMachine(String text) {
            if (text.equals("btree") || text.equals("hashmap")) return text;
            throw new IllegalArgumentException("must be btree or hashmap, was '" + text + "'");
        }

        static io.tandem.execution.ExecutionMode executionMode(String text) {
            return io.tandem.execution.ExecutionMode.parse(text);
        }

        static io.tandem.kv.KeyPartitioning partitioning(String text) {
            return io.tandem.kv.KeyPartitioning.parse(text);
        }

        static boolean bool(String text) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> true;
                case "false", "no", "off" -> false;
                default -> throw new IllegalArgumentException("'" + text + "' is not true or false");
            };
        }

        static int port(String text) {
            int p = integer(text);
            if (p < 1 || p > 65535) throw new IllegalArgumentException("port " + p + " is outside 1-65535");
            return p;
        }

        static int portOrZero(String text) {
            return integer(text) == 0 ? 0 : port(text);
        }

        static int positiveInt(String text) {
            int n = integer(text);
            if (n < 1) throw new IllegalArgumentException(n + " is not positive");
            return n;
        }

        static int integer(String text) {
            try {
                return Integer.parseInt(text.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a whole number");
            }
        }

        static Duration positiveDuration(String text) {
            Duration d = DurationText.parse(text);
            if (d.isZero()) throw new IllegalArgumentException("must be longer than zero");
            return d;
        }

        private static boolean sameHost(String a, String b) {
            return a.equals(b) || isWildcard(a) || isWildcard(b);
        }

        private static boolean isWildcard(String host) {
            return host.equals("0.0.0.0") || host.equals("::");
        }

        private static String names(Set<NodeId> nodes) {
            return nodes.stream().map(NodeId::value).toList().toString();
        }
    }
}
