package io.tandem.bench;

import io.tandem.bench.os.Cleanup;
import io.tandem.bench.os.Signals;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A KV cluster of separate server JVMs on loopback ({@code tandem server}, the same command a user
 * runs), started with identical JVM settings and with fault injection on so the benchmark can set
 * a slow-node plan. Each server's output goes to its own log file.
 */
final class ServerCluster implements AutoCloseable {
    /** One member: its name, where it listens and where it keeps its data. */
    record Member(String id, Endpoint peer, Endpoint client, int metricsPort, Path dataDir) {}

    /** How server JVMs are launched: the java binary, the class path holding the CLI, the JVM options. */
    record ServerJvm(Path java, String classPath, List<String> options) {
        ServerJvm {
            options = List.copyOf(options);
        }
    }

    /** Who leads, in which term, as every member reported it. */
    record Leadership(String leader, long epoch) {}

    /** A running server process. */
    static final class Server {
        final Member member;
        final Process process;
        final Path log;

        Server(Member member, Process process, Path log) {
            this.member = member;
            this.process = process;
            this.log = log;
        }

        long pid() {
            return process.pid();
        }

        /** SIGTERM (the server stops gracefully and a JFR recording is written), SIGKILL if it is still there after 10 s. */
        void kill() {
            if (!process.isAlive()) return;
            Signals.resumeQuietly(process.pid()); // a stopped process would not run its exit path
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(20, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private final Map<String, Server> servers;
    private final List<Cleanup.Action> kills;
    private final String protocol;

    private ServerCluster(Map<String, Server> servers, List<Cleanup.Action> kills, String protocol) {
        this.servers = servers;
        this.kills = kills;
        this.protocol = protocol;
    }

    /** The members of an {@code n}-node cluster: peers on basePort+i, clients on basePort+1000+i, metrics on basePort+2000+i. */
    static List<Member> layout(int n, int basePort, List<Path> dataDirs) {
        return layout(n, basePort, 1000, dataDirs);
    }

    /** As {@link #layout(int, int, List)} with clients on basePort+spacing+i and metrics on basePort+2*spacing+i. */
    static List<Member> layout(int n, int basePort, int spacing, List<Path> dataDirs) {
        if (spacing <= n) throw new IllegalArgumentException("port spacing " + spacing + " must exceed the cluster size " + n);
        List<Member> members = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            members.add(new Member("n" + i, new Endpoint("127.0.0.1", basePort + i), new Endpoint("127.0.0.1", basePort + spacing + i),
                    basePort + 2 * spacing + i, dataDirs.get(i - 1)));
        }
        return members;
    }

    /** Fails with a clear message if a port the cluster needs is taken (by another helper's cluster, say). */
    static void checkPortsFree(List<Member> members) {
        for (Member m : members) {
            for (int port : new int[] {m.peer().port(), m.client().port(), m.metricsPort()}) {
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress("127.0.0.1", port));
                } catch (IOException e) {
                    throw new IllegalStateException("port " + port + " on 127.0.0.1 is in use; choose other ports with --base-port");
                }
            }
        }
    }

    /** Starts one JVM per member; the processes are registered with {@code cleanup} so they die with the benchmark. */
    static ServerCluster start(List<Member> members, ServerJvm jvm, Path logDir, String tag, boolean jfr, Cleanup cleanup) {
        return start(members, jvm, logDir, tag, jfr, cleanup, "raft");
    }

    /** {@link #start(List, ServerJvm, Path, String, boolean, Cleanup)} with the engine every server runs ({@code --protocol}). */
    static ServerCluster start(List<Member> members, ServerJvm jvm, Path logDir, String tag, boolean jfr, Cleanup cleanup, String protocol) {
        checkPortsFree(members);
        String peerList = members.stream().map(m -> m.id() + "=" + m.peer()).collect(Collectors.joining(","));
        String clientList = members.stream().map(m -> m.id() + "=" + m.client()).collect(Collectors.joining(","));
        Map<String, Server> servers = new LinkedHashMap<>();
        List<Cleanup.Action> kills = new ArrayList<>();
        try {
            Files.createDirectories(logDir);
            for (Member m : members) {
                Files.createDirectories(m.dataDir());
                List<String> cmd = new ArrayList<>();
                cmd.add(jvm.java().toString());
                cmd.addAll(jvm.options());
                if (jfr) cmd.add("-XX:StartFlightRecording=filename=" + logDir.resolve(tag + "-" + m.id() + ".jfr") + ",settings=profile");
                cmd.addAll(List.of("-cp", jvm.classPath(), "io.tandem.cli.TandemCli", "server",
                        "--id", m.id(), "--members", peerList, "--client-members", clientList, "--cluster", "failslow",
                        "--data-dir", m.dataDir().toString(), "--fsync", "--metrics-port", Integer.toString(m.metricsPort()),
                        "--fault-injection", "--protocol", protocol));
                Path log = logDir.resolve(tag + "-" + m.id() + ".log");
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                Server s = new Server(m, p, log);
                servers.put(m.id(), s);
                kills.add(cleanup.register("kill server " + m.id() + " (pid " + p.pid() + ")", s::kill));
            }
        } catch (IOException e) {
            kills.forEach(Cleanup.Action::run);
            throw new UncheckedIOException("cannot start the servers: " + e.getMessage(), e);
        }
        return new ServerCluster(servers, kills, protocol);
    }

    List<String> ids() {
        return List.copyOf(servers.keySet());
    }

    Server server(String id) {
        Server s = servers.get(id);
        if (s == null) throw new IllegalArgumentException("no member " + id);
        return s;
    }

    List<Endpoint> clientAddresses() {
        return servers.values().stream().map(s -> s.member.client()).toList();
    }

    /**
     * Waits until every member is up and all agree on one leader and term. Fails early, with the
     * tail of its log, if a server process exits.
     */
    Leadership awaitLeader(TandemKvClient admin, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            for (Server s : servers.values()) {
                if (!s.process.isAlive()) {
                    throw new IllegalStateException("server " + s.member.id() + " exited with " + s.process.exitValue() + "; log " + s.log + ":\n" + tail(s.log, 15));
                }
            }
            Map<String, NodeStatus> statuses = new LinkedHashMap<>();
            for (Server s : servers.values()) {
                try {
                    statuses.put(s.member.id(), admin.statusAsync(s.member.client()).get(2, TimeUnit.SECONDS));
                } catch (Exception e) {
                    last = s.member.id() + ": " + e.getMessage();
                    break;
                }
            }
            if (statuses.size() == servers.size()) {
                Leadership l = agreedLeader(statuses, leadersOf(protocol));
                if (l != null) return l;
                last = statuses.values().stream().map(st -> st.node() + " " + st.role() + " epoch " + st.epoch() + " leader " + st.leader())
                        .collect(Collectors.joining("; "));
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no agreed leader within " + timeout.toSeconds() + " s (" + last + ")");
    }

    /**
     * How many members report themselves LEADER in a settled cluster of {@code protocol}: two for
     * Copilot (the pilot and the copilot both order commands), one otherwise.
     */
    static int leadersOf(String protocol) {
        return "copilot".equals(protocol) ? 2 : 1;
    }

    /**
     * The leader and epoch every status agrees on. With {@code leaders == 2} (Copilot) exactly two
     * members must report LEADER and every other member must name the same one of them (the pilot
     * of log 0, which the engine's status names); that one is "the leader" the benchmark slows.
     */
    static Leadership agreedLeader(Map<String, NodeStatus> statuses, int leaders) {
        if (leaders == 1) return agreedLeader(statuses);
        List<String> leading = statuses.values().stream().filter(NodeStatus::isLeader).map(NodeStatus::node).toList();
        if (leading.size() != leaders) return null;
        String named = null;
        long epoch = statuses.values().iterator().next().epoch();
        for (NodeStatus st : statuses.values()) {
            if (st.epoch() != epoch) return null;
            if (st.isLeader()) continue;
            if (st.leader() == null || !leading.contains(st.leader())) return null;
            if (named != null && !named.equals(st.leader())) return null;
            named = st.leader();
        }
        return named == null ? null : new Leadership(named, epoch);
    }

    /** The leader and epoch every status agrees on, if exactly one member reports itself leader; otherwise null. */
    static Leadership agreedLeader(Map<String, NodeStatus> statuses) {
        String leader = null;
        long epoch = -1;
        for (NodeStatus st : statuses.values()) {
            if (st.isLeader()) {
                if (leader != null) return null;
                leader = st.node();
                epoch = st.epoch();
            }
        }
        if (leader == null) return null;
        for (NodeStatus st : statuses.values()) {
            if (!leader.equals(st.leader()) || st.epoch() != epoch) return null;
        }
        return new Leadership(leader, epoch);
    }

    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** Stops every server (SIGCONT first, so a paused one stops too). */
    @Override
    public void close() {
        kills.forEach(Cleanup.Action::run);
    }
}
