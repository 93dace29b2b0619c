package io.tandem.peers.aeron;

import io.tandem.peers.driver.ClusterLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

/**
 * Ports, channels, directories and idle strategies shared by replicas and clients.
 *
 * <p>Ports: each member takes five fixed ports from its block of the {@link ClusterLayout}: {@link #INGRESS}
 * (clients' requests), {@link #CONSENSUS} (members' consensus messages), {@link #LOG} (where a follower receives
 * the leader's log), {@link #CATCHUP} (log replay to a lagging follower) and {@link #ARCHIVE_CONTROL} (the
 * member's Archive). Replication and response channels use {@code endpoint=host:0} (an ephemeral port, as
 * Aeron's own samples do), because one member may run several of them at once.
 *
 * <p>Idle strategies: on a 2-core machine three members' agents must not busy-spin, so every agent (media driver
 * in SHARED mode, archive in SHARED mode, consensus module, clustered service, the client's driver and polling
 * thread) uses {@link #idleStrategy}: Agrona's {@link BackoffIdleStrategy} with 10 spins, 20 yields, then parks
 * from 1 µs doubling up to {@code idle-max-park-us} (default 1000), or {@code idle=sleep}: a 1 ms sleep.
 */
final class AeronSettings {
    static final int INGRESS = 0;
    static final int CONSENSUS = 1;
    static final int LOG = 2;
    static final int CATCHUP = 3;
    static final int ARCHIVE_CONTROL = 4;

    private static final Path SHM = Path.of("/dev/shm");
    private static final AtomicInteger DIRECTORIES = new AtomicInteger();

    private AeronSettings() {
    }

    /** Aeron's member list: {@code id,ingress,consensus,log,catchup,archiveControl|...}. */
    static String clusterMembers(ClusterLayout layout) {
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < layout.replicas(); i++) {
            if (i > 0) members.append('|');
            members.append(i);
            for (int offset : new int[] {INGRESS, CONSENSUS, LOG, CATCHUP, ARCHIVE_CONTROL}) {
                members.append(',').append(layout.host()).append(':').append(layout.port(i, offset));
            }
        }
        return members.toString();
    }

    /** The client's view of the members: {@code 0=host:ingress,1=...}. */
    static String ingressEndpoints(ClusterLayout layout) {
        StringBuilder endpoints = new StringBuilder();
        for (int i = 0; i < layout.replicas(); i++) {
            if (i > 0) endpoints.append(',');
            endpoints.append(i).append('=').append(layout.host()).append(':').append(layout.port(i, INGRESS));
        }
        return endpoints.toString();
    }

    static String udp(String host, int port) {
        return "aeron:udp?endpoint=" + host + ":" + port;
    }

    /** A UDP channel on an ephemeral port of {@code host}. */
    static String ephemeralUdp(String host) {
        return udp(host, 0);
    }

    /** The idle strategy every agent uses (see the class comment). */
    static Supplier<IdleStrategy> idleStrategy(Map<String, String> options) {
        String kind = options.getOrDefault("idle", "backoff");
        long maxParkNs = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(options.getOrDefault("idle-max-park-us", "1000")));
        return switch (kind) {
            case "backoff" -> () -> new BackoffIdleStrategy(10, 20, 1_000, maxParkNs);
            case "sleep" -> () -> new SleepingMillisIdleStrategy(1);
            default -> throw new IllegalArgumentException("idle must be backoff or sleep, got '" + kind + "'");
        };
    }

    /** A fresh directory name under /dev/shm for one media driver, unique to this process and call. */
    static String aeronDirectory(String role) {
        long pid = ProcessHandle.current().pid();
        return SHM.resolve("tandem-aeron-" + pid + "-" + role + "-" + DIRECTORIES.incrementAndGet()).toString();
    }

    /** Removes a media driver directory that the driver did not remove itself (it normally does on close). */
    static void deleteRecursively(String directory) {
        Path root = Path.of(directory);
        if (!Files.exists(root)) return;
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
