package io.tandem.jepsen;

import io.tandem.jepsen.cluster.ClusterSpec;
import io.tandem.jepsen.host.HostLayout;
import io.tandem.jepsen.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything one run needs.
 *
 * @param workload        the workload spec, with the command line's overrides applied
 * @param protocol        the engine every server runs ({@code raft}, {@code toy-pb}, ...)
 * @param nodes           number of servers
 * @param seed            drives every random choice of the generators and the nemesis
 * @param storeRoot       the store ({@code store/})
 * @param layout          names and addresses on the host
 * @param javaBin         the servers' java launcher
 * @param classPath       the servers' class path
 * @param jvmOptions      the servers' JVM options
 * @param extraServerArgs more {@code tandem server} flags
 * @param loopDisks       give each node a loop-device disk when the host can (needed for slow disk)
 * @param readyTimeout    how long the fresh cluster may take to accept a write
 * @param lockWait        how long to wait for another run on this host
 * @param tls             mutual TLS between the servers and TLS with client certificates for the
 *                        clients, from a development CA the run makes in its store directory
 */
public record RunConfig(WorkloadSpec workload, String protocol, int nodes, long seed, Path storeRoot, HostLayout layout,
                        Path javaBin, String classPath, List<String> jvmOptions, List<String> extraServerArgs,
                        boolean loopDisks, Duration readyTimeout, Duration lockWait, boolean tls) {
    public static final long DISK_BYTES = 512L << 20;

    public RunConfig {
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(protocol, "protocol");
        if (nodes < 1 || nodes > 9) throw new IllegalArgumentException("nodes must be 1..9");
        jvmOptions = List.copyOf(jvmOptions);
        extraServerArgs = List.copyOf(extraServerArgs);
    }

    /** A run of {@code workload} against {@code protocol} with the defaults of this JVM and host. */
    public static RunConfig defaults(WorkloadSpec workload, String protocol) {
        return new RunConfig(workload, protocol, 5, System.nanoTime(), Path.of("store"), HostLayout.DEFAULT,
                ClusterSpec.currentJava(), ClusterSpec.currentClassPath(), ClusterSpec.DEFAULT_JVM_OPTIONS, List.of(),
                true, Duration.ofSeconds(90), Duration.ofMinutes(15), false);
    }

    public RunConfig withNodes(int n) {
        return new RunConfig(workload, protocol, n, seed, storeRoot, layout, javaBin, classPath, jvmOptions, extraServerArgs, loopDisks, readyTimeout, lockWait, tls);
    }

    public RunConfig withSeed(long s) {
        return new RunConfig(workload, protocol, nodes, s, storeRoot, layout, javaBin, classPath, jvmOptions, extraServerArgs, loopDisks, readyTimeout, lockWait, tls);
    }

    public RunConfig withStoreRoot(Path p) {
        return new RunConfig(workload, protocol, nodes, seed, p, layout, javaBin, classPath, jvmOptions, extraServerArgs, loopDisks, readyTimeout, lockWait, tls);
    }

    public RunConfig withExtraServerArgs(List<String> args) {
        return new RunConfig(workload, protocol, nodes, seed, storeRoot, layout, javaBin, classPath, jvmOptions, args, loopDisks, readyTimeout, lockWait, tls);
    }

    public RunConfig withClassPath(String cp) {
        return new RunConfig(workload, protocol, nodes, seed, storeRoot, layout, javaBin, cp, jvmOptions, extraServerArgs, loopDisks, readyTimeout, lockWait, tls);
    }

    public RunConfig withLoopDisks(boolean b) {
        return new RunConfig(workload, protocol, nodes, seed, storeRoot, layout, javaBin, classPath, jvmOptions, extraServerArgs, b, readyTimeout, lockWait, tls);
    }

    public RunConfig withWorkload(WorkloadSpec w) {
        return new RunConfig(w, protocol, nodes, seed, storeRoot, layout, javaBin, classPath, jvmOptions, extraServerArgs, loopDisks, readyTimeout, lockWait, tls);
    }

    public RunConfig withTls(boolean on) {
        return new RunConfig(workload, protocol, nodes, seed, storeRoot, layout, javaBin, classPath, jvmOptions, extraServerArgs, loopDisks, readyTimeout, lockWait, on);
    }
}
