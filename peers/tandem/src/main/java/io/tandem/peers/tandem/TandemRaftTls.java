package io.tandem.peers.tandem;

import io.tandem.engine.NodeId;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.transport.tcp.tls.DevCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Set;

/**
 * {@code tandem-raft-tls}: {@code tandem-raft} with mutual TLS 1.3 between the replicas and TLS on
 * the client port (the load authenticates with a client certificate of role read,write), to
 * measure what TLS costs. Replicas and the load run in separate JVMs, so they share a development
 * CA in {@code <tmp>/tandem-peers-tls-<n>r}: the first JVM to need it makes it in a directory of
 * its own and moves it into place atomically; the others use the one that won.
 */
public final class TandemRaftTls extends TandemSystem {
    static final String CLIENT = "bench";

    public TandemRaftTls() {
        super("tandem-raft-tls", "raft");
    }

    @Override
    Path tlsDir(ClusterLayout layout) {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "tandem-peers-tls-" + layout.replicas() + "r");
        if (Files.exists(dir.resolve("done"))) return dir;
        try {
            Path mine = Files.createTempDirectory(dir.getParent(), "tandem-peers-tls-new");
            Duration validity = Duration.ofDays(30);
            DevCertificates.Issued ca = DevCertificates.newCa("peer benchmark CA", validity);
            DevCertificates.writeCertificates(mine.resolve("ca.pem"), ca.certificate());
            for (int i = 0; i < layout.replicas(); i++) {
                NodeId id = NodeId.of(nodeId(i));
                DevCertificates.Issued m = DevCertificates.issueMember(ca, id, validity);
                DevCertificates.writeCertificates(mine.resolve(id.value() + ".pem"), m.certificate(), ca.certificate());
                DevCertificates.writeKey(mine.resolve(id.value() + "-key.pem"), m.key());
            }
            DevCertificates.Issued client = DevCertificates.issueClient(ca, CLIENT, Set.of("read", "write"), validity);
            DevCertificates.writeCertificates(mine.resolve(CLIENT + ".pem"), client.certificate(), ca.certificate());
            DevCertificates.writeKey(mine.resolve(CLIENT + "-key.pem"), client.key());
            Files.writeString(mine.resolve("done"), "complete\n");
            try {
                Files.move(mine, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) { // rename(2) onto a non-empty directory fails: another JVM won the race
                if (!Files.exists(dir.resolve("done"))) throw e;
                try (var files = Files.list(mine)) {
                    for (Path f : files.toList()) Files.delete(f);
                }
                Files.delete(mine);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the benchmark's TLS files in " + dir + ": " + e.getMessage(), e);
        }
    }
}
