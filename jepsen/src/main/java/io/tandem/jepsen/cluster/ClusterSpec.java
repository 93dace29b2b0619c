package io.tandem.jepsen.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * How to start the servers of a run.
 *
 * @param nodes            number of server processes (3 to 9 make sense for a majority protocol)
 * @param protocol         the {@code --protocol} of every server
 * @param javaBin          the {@code java} launcher for the servers
 * @param classPath        a class path holding {@code io.tandem.cli.TandemCli} and its dependencies
 * @param jvmOptions       options of every server JVM (heap, GC: five JVMs share two cores here)
 * @param extraServerArgs  more {@code tandem server} flags, for example {@code --no-fsync}
 * @param loopDisks        give each node its own loop-device disk (needed for the slow-disk fault)
 * @param diskBytes        size of each node's sparse disk image
 * @param logDir           where each node's log goes ({@code <logDir>/<node>/server.log})
 * @param tlsDir           the development CA and certificates of a TLS cluster (as {@code tandem certs}
 *                         writes them), or null for plaintext
 */
public record ClusterSpec(int nodes, String protocol, Path javaBin, String classPath, List<String> jvmOptions,
                          List<String> extraServerArgs, boolean loopDisks, long diskBytes, Path logDir, Path tlsDir) {
    public static final int PEER_PORT = 7000;
    public static final int CLIENT_PORT = 8000;
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xss512k", "-XX:+ExitOnOutOfMemoryError", "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow");

    public ClusterSpec {
        if (nodes < 1 || nodes > 9) throw new IllegalArgumentException("nodes must be 1..9, was " + nodes);
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(javaBin, "javaBin");
        Objects.requireNonNull(classPath, "classPath");
        jvmOptions = List.copyOf(jvmOptions);
        extraServerArgs = List.copyOf(extraServerArgs);
        Objects.requireNonNull(logDir, "logDir");
        if (diskBytes < 32L << 20) throw new IllegalArgumentException("diskBytes must be at least 32 MiB");
    }

    /** How the runner's clients authenticate: as the development CA's admin client on a TLS cluster (the membership fault needs the admin role). */
    public io.tandem.kv.client.KvClientSecurity clientSecurity() {
        return tlsDir == null ? io.tandem.kv.client.KvClientSecurity.NONE : io.tandem.kv.client.KvClientSecurity.fromDirectory(tlsDir, "admin");
    }

    /** The java launcher of this JVM and its class path (which holds the server when the runner does). */
    public static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    public static String currentClassPath() {
        return System.getProperty("java.class.path");
    }
}
