package io.tandem.cli;

import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.DurationText;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Options shared by the commands that talk to a running cluster: where it is, and how long to wait.
 * Without {@code --members}, the local cluster of {@code tandem cluster} in {@code --dir} is used,
 * or the default local ports.
 */
final class ClusterOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--members", paramLabel = "HOST:PORT,...", split = ",",
            description = "Client addresses of the cluster (default: the local cluster in --dir, else 127.0.0.1:8001-8003).")
    List<String> members;

    @Option(names = "--dir", paramLabel = "DIR", description = "Directory of the local cluster (default ${DEFAULT-VALUE}).")
    Path dir = LocalCluster.DEFAULT_DIR;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "Give up after this long, retries included (default ${DEFAULT-VALUE}).")
    String timeout = "5s";

    /** The members' client addresses; throws a ParameterException for malformed ones. */
    List<Endpoint> endpoints() {
        if (members != null && !members.isEmpty()) {
            List<Endpoint> out = new ArrayList<>();
            for (String m : members) {
                try {
                    out.add(Endpoint.parse(m.strip()));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--members: " + e.getMessage());
                }
            }
            return out;
        }
        return LocalCluster.clientAddressesOf(dir);
    }

    Duration timeout() {
        try {
            return DurationText.parse(timeout);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--timeout: " + e.getMessage());
        }
    }

    /**
     * A client of the cluster, or a {@link NoClusterException} if nothing accepts connections at any
     * member address (a clear message beats waiting out the timeout).
     */
    TandemKvClient connect() {
        List<Endpoint> endpoints = endpoints();
        Duration t = timeout();
        if (!anyAccepts(endpoints)) {
            throw new NoClusterException("no cluster is running: nothing accepts connections at " + String.join(", ", endpoints.stream().map(Endpoint::toString).toList())
                    + (members == null ? "; start one with ./tandem cluster, or pass --members" : ""));
        }
        return TandemKvClient.connect(KvClientConfig.of(endpoints).withRequestTimeout(t).withAttemptTimeout(t.compareTo(Duration.ofSeconds(2)) < 0 ? t : Duration.ofSeconds(2)));
    }

    static boolean anyAccepts(List<Endpoint> endpoints) {
        for (Endpoint e : endpoints) if (accepts(e)) return true;
        return false;
    }

    static boolean accepts(Endpoint e) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(e.host(), e.port()), 300);
            return true;
        } catch (IOException ex) {
            return false;
        }
    }

    /** Nothing answers at the cluster's addresses. */
    static final class NoClusterException extends RuntimeException {
        NoClusterException(String message) {
            super(message, null, false, false);
        }
    }
}
