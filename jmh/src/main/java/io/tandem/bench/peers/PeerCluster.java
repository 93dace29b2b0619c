package io.tandem.bench.peers;

import io.tandem.bench.os.Cleanup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The replicas of one system, each a JVM of its own ({@code PeerMain replica}) with a fresh data
 * directory, on 127.0.0.1 ports {@code basePort ..} (20 per replica, see the driver's
 * {@code ClusterLayout}).
 */
final class PeerCluster implements AutoCloseable {
    /** The replicas did not come up: which condition was missing, with the tails of their logs. */
    static final class StartFailure extends Exception {
        StartFailure(String message) {
            super(message);
        }
    }

    /** One running replica. */
    record Member(int index, JvmProcess process, Path dataDir, Path roleFile) {}

    static final int PORTS_PER_REPLICA = 20; // io.tandem.peers.driver.ClusterLayout.PORTS_PER_REPLICA

    private final String system;
    private final int basePort;
    private final List<Member> members;

    private PeerCluster(String system, int basePort, List<Member> members) {
        this.system = system;
        this.basePort = basePort;
        this.members = members;
    }

    /** Starts {@code replicas} replica JVMs of {@code system} from {@code jar}; {@code dataRoot} is emptied first. */
    static PeerCluster start(JvmProcess.Launcher launcher, String system, Path jar, int replicas, boolean fsync, List<String> options, int basePort,
                             Path dataRoot, Path logDir, String tag, Cleanup cleanup) throws StartFailure {
        String busy = busyPort(basePort, replicas * PORTS_PER_REPLICA);
        if (busy != null) throw new StartFailure(busy + "; another run or another helper's cluster may be using it (choose --base-port)");
        Files2.deleteRecursively(dataRoot);
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < replicas; i++) {
                Path data = dataRoot.resolve("r" + i);
                Files.createDirectories(data);
                Path role = dataRoot.resolve("r" + i + ".role");
                List<String> args = new ArrayList<>(List.of("replica", "--system", system, "--id", Integer.toString(i), "--replicas", Integer.toString(replicas),
                        "--base-port", Integer.toString(basePort), "--data", data.toString(), "--fsync=" + fsync, // the driver's --fsync is a boolean flag: only the attached form takes a value

                        "--role-file", role.toString()));
                for (String o : options) args.addAll(List.of("--opt", o));
                JvmProcess p = JvmProcess.start(system + " replica " + i, launcher.command(jar, args), logDir.resolve(tag + "-r" + i + ".log"), cleanup);
                members.add(new Member(i, p, data, role));
            }
        } catch (IOException | RuntimeException e) {
            members.forEach(m -> m.process().stop());
            throw new StartFailure("cannot start the replicas of " + system + ": " + e.getMessage());
        }
        return new PeerCluster(system, basePort, members);
    }

    /**
     * Waits until every replica printed its READY line and exactly one reports itself LEADER. Fails
     * early if a replica exits; on timeout the failure names what was missing.
     */
    void awaitReady(Duration timeout) throws StartFailure, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Member m : members) {
                if (!m.process().alive()) {
                    throw new StartFailure(system + " replica " + m.index() + " exited with " + m.process().exitValue() + " during start-up; " + tails());
                }
            }
            List<Integer> notReady = members.stream().filter(m -> !printedReady(m.process().log())).map(Member::index).toList();
            List<String> roles = roles();
            if (notReady.isEmpty() && Leadership.singleLeader(roles) >= 0) return;
            if (System.nanoTime() > deadline) {
                String why = !notReady.isEmpty() ? "replicas " + notReady + " printed no READY line" : "no single LEADER (roles " + roles + ")";
                throw new StartFailure(system + " not ready within " + timeout.toSeconds() + " s: " + why + "; " + tails());
            }
            Thread.sleep(100); // polling the replicas' logs and role files
        }
    }

    /** Every replica's current role as its role file says: LEADER, FOLLOWER, OTHER, or "?" before the file exists. */
    List<String> roles() {
        List<String> roles = new ArrayList<>();
        for (Member m : members) roles.add(readRole(m.roleFile()));
        return roles;
    }

    static String readRole(Path file) {
        try {
            String r = Files.readString(file, StandardCharsets.UTF_8).strip();
            return r.isEmpty() ? "?" : r;
        } catch (NoSuchFileException e) {
            return "?";
        } catch (IOException e) {
            return "?";
        }
    }

    static boolean printedReady(Path log) {
        try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.anyMatch(l -> l.startsWith("READY"));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /** Whether any replica's log contains {@code text}. */
    boolean logsMention(String text) {
        for (Member m : members) {
            try (var lines = Files.lines(m.process().log(), StandardCharsets.UTF_8)) {
                if (lines.anyMatch(l -> l.contains(text))) return true;
            } catch (IOException | UncheckedIOException e) {
                // an unreadable log mentions nothing
            }
        }
        return false;
    }

    List<Member> members() {
        return members;
    }

    Member member(int index) {
        return members.get(index);
    }

    int basePort() {
        return basePort;
    }

    /** The last log lines of every replica, for a failure report. */
    String tails() {
        return members.stream().map(m -> "replica " + m.index() + " log (" + m.process().log() + "):\n" + indent(m.process().tail(12)))
                .collect(Collectors.joining("\n"));
    }

    private static String indent(String s) {
        return s.lines().map(l -> "    " + l).collect(Collectors.joining("\n"));
    }

    /** The first TCP port of {@code [from, from + count)} that cannot be bound on 127.0.0.1, described; null if all are free. */
    static String busyPort(int from, int count) {
        for (int port = from; port < from + count; port++) {
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress("127.0.0.1", port));
            } catch (IOException e) {
                return "port " + port + " on 127.0.0.1 is in use";
            }
        }
        return null;
    }

    /** Stops every replica (SIGCONT, SIGTERM, SIGKILL after a deadline), in parallel so a slow one does not hold up the others. */
    @Override
    public void close() {
        List<Thread> stoppers = members.stream().map(m -> Thread.ofPlatform().name("stop-r" + m.index()).start(m.process()::stop)).toList();
        for (Thread t : stoppers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                members.forEach(m -> m.process().stop());
                return;
            }
        }
    }
}
