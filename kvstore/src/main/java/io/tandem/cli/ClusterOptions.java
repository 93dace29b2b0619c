package io.tandem.cli;

import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.KvClientSecurity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
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
import java.util.Optional;
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

    @Option(names = "--tls-dir", paramLabel = "DIR", description = "Use TLS with DIR/ca.pem and present DIR/<--as>.pem (as 'tandem certs' writes them).")
    Path tlsDir;

    @Option(names = "--as", paramLabel = "NAME", description = "The client certificate in --tls-dir to present (default: admin, if DIR/admin.pem exists).")
    String as;

    @Option(names = "--ca", paramLabel = "FILE", description = "Use TLS, trusting the CA certificates in FILE (PEM).")
    Path ca;

    @Option(names = "--cert", paramLabel = "FILE", description = "Client certificate chain to present (PEM), with --key.")
    Path cert;

    @Option(names = "--key", paramLabel = "FILE", description = "Private key of --cert (PKCS#8 PEM).")
    Path key;

    @Option(names = "--token-file", paramLabel = "FILE", description = "Authenticate with the token in FILE (or set TANDEM_TOKEN).")
    Path tokenFile;

    @Option(names = "--credentials", paramLabel = "FILE", description = "Read tls-dir, as, ca, cert, key and token-file from FILE ('key = value' lines); flags win.")
    Path credentials;

    /**
     * How to authenticate: flags, then the credentials file, then TANDEM_TOKEN, then (without
     * --members) the certificates of a local TLS cluster in --dir; else plaintext and anonymous.
     */
    KvClientSecurity security() {
        Map<String, String> file = credentials == null ? Map.of() : readCredentials(credentials);
        Path dirOfCerts = tlsDir != null ? tlsDir : path(file, "tls-dir");
        String name = as != null ? as : file.get("as");
        Path caFile = ca != null ? ca : path(file, "ca");
        Path certFile = cert != null ? cert : path(file, "cert");
        Path keyFile = key != null ? key : path(file, "key");
        Path tokenPath = tokenFile != null ? tokenFile : path(file, "token-file");
        if (dirOfCerts == null && caFile == null && (members == null || members.isEmpty())) {
            Optional<LocalCluster> local = LocalCluster.read(dir);
            if (local.isPresent() && local.get().tls()) {
                dirOfCerts = local.get().certsDir();
            }
        }
        if (dirOfCerts != null) {
            if (caFile == null) caFile = dirOfCerts.resolve("ca.pem");
            if (name == null && Files.exists(dirOfCerts.resolve("admin.pem"))) name = "admin";
            if (name != null && certFile == null) {
                certFile = dirOfCerts.resolve(name + ".pem");
                keyFile = dirOfCerts.resolve(name + "-key.pem");
            }
        }
        String token = null;
        if (tokenPath != null) {
            try {
                token = Files.readString(tokenPath, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--token-file: cannot read " + tokenPath + ": " + e.getMessage());
            }
        } else if (System.getenv("TANDEM_TOKEN") != null) {
            token = System.getenv("TANDEM_TOKEN").strip();
        }
        if ((certFile == null) != (keyFile == null)) throw new ParameterException(spec.commandLine(), "--cert and --key go together");
        if (certFile != null && caFile == null) throw new ParameterException(spec.commandLine(), "--cert needs --ca (or --tls-dir): client certificates are sent over TLS only");
        return new KvClientSecurity(caFile, certFile, keyFile, token);
    }

    private Path path(Map<String, String> file, String k) {
        String v = file.get(k);
        return v == null ? null : Path.of(v);
    }

    private Map<String, String> readCredentials(Path f) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--credentials: cannot read " + f + ": " + e.getMessage());
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            String k = eq < 0 ? "" : line.substring(0, eq).strip();
            if (!List.of("tls-dir", "as", "ca", "cert", "key", "token-file").contains(k)) {
                throw new ParameterException(spec.commandLine(), "--credentials: " + f + " line " + (i + 1) + ": expected one of tls-dir, as, ca, cert, key, token-file = VALUE");
            }
            out.put(k, line.substring(eq + 1).strip());
        }
        return out;
    }

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
        return TandemKvClient.connect(KvClientConfig.of(endpoints).withRequestTimeout(t).withAttemptTimeout(t.compareTo(Duration.ofSeconds(2)) < 0 ? t : Duration.ofSeconds(2))
                .withSecurity(security()));
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
