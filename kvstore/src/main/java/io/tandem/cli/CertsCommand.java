package io.tandem.cli;

import io.tandem.engine.NodeId;
import io.tandem.kv.server.Role;
import io.tandem.kv.server.TokenStore;
import io.tandem.transport.tcp.tls.DevCertificates;
import io.tandem.transport.tcp.tls.DevCertificates.Issued;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem certs}: a development CA and the certificates of a cluster's members and clients,
 * plus an admin token, with the JDK alone ({@link DevCertificates}). For production, issue
 * certificates from your own CA with the same subject alternative names.
 */
@Command(name = "certs", sortOptions = false, mixinStandardHelpOptions = true, description = {
        "Make a development CA, a certificate per member and per client, and an admin token, for a cluster with TLS.",
        "Writes into --dir: ca.pem (and ca-key.pem, keep it private), <member>.pem + <member>-key.pem, <client>.pem + <client>-key.pem,",
        "tokens (hashes the servers accept) and <client>.token (the secrets). Start each server with --tls-dir DIR (and --client-tokens DIR/tokens);",
        "clients use --tls-dir DIR --as <client>, or --token-file DIR/<client>.token."})
public final class CertsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where to write the files (default ${DEFAULT-VALUE}).")
    Path dir = Path.of("tandem-certs");

    @Option(names = "--members", paramLabel = "n1,n2,...", split = ",", description = "Member ids (default ${DEFAULT-VALUE}).")
    List<String> members = List.of("n1", "n2", "n3");

    @Option(names = "--client", paramLabel = "NAME=ROLES", description = {"A client and its roles, repeatable, e.g. --client app=read,write",
            "(default: admin=read,write,admin and app=read,write)."})
    Map<String, String> clients;

    @Option(names = "--days", paramLabel = "N", description = "Validity of every certificate (default ${DEFAULT-VALUE}).")
    int days = 365;

    @Option(names = "--force", description = "Overwrite the files of an existing CA in --dir (members must then get the new files).")
    boolean force;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<NodeId> ids = new ArrayList<>();
        for (String m : members) {
            try {
                ids.add(NodeId.of(m.strip()));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--members: " + e.getMessage());
            }
        }
        Map<String, Set<Role>> roles = new LinkedHashMap<>();
        if (clients == null || clients.isEmpty()) {
            roles.put("admin", EnumSet.allOf(Role.class));
            roles.put("app", EnumSet.of(Role.READ, Role.WRITE));
        } else {
            clients.forEach((name, r) -> {
                if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) throw new ParameterException(spec.commandLine(), "--client: '" + name + "' is not a client name");
                try {
                    roles.put(name, Role.parseSet(r));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--client " + name + ": " + e.getMessage());
                }
            });
        }
        if (days < 1) throw new ParameterException(spec.commandLine(), "--days must be at least 1");
        if (Files.exists(dir.resolve("ca.pem")) && !force) {
            spec.commandLine().getErr().println("tandem certs: " + dir.resolve("ca.pem") + " exists; pass --force to make a new CA (every member then needs the new files)");
            return 2;
        }
        write(dir, ids, roles, Duration.ofDays(days));
        out.println("Wrote a development CA and certificates to " + dir.toAbsolutePath() + ":");
        out.println("  ca.pem, ca-key.pem (keep the CA key private; it can make members)");
        for (NodeId id : ids) out.println("  " + id + ".pem, " + id + "-key.pem    member " + id);
        roles.forEach((name, r) -> out.println("  " + name + ".pem, " + name + "-key.pem, " + name + ".token    client " + name + " " + Role.describeSet(r)));
        out.println("  tokens    the token hashes servers accept (--client-tokens)");
        out.println("Start each member with:  ./tandem server ... --tls-dir " + dir + " --client-tokens " + dir.resolve("tokens"));
        out.println("Then, as a client:       ./tandem put k v --members HOST:PORT --tls-dir " + dir + " --as app");
        out.flush();
        return 0;
    }

    /**
     * Writes the CA, member and client files into {@code dir}, as the command does: what a local
     * cluster, the demo and the Jepsen runner use to run with TLS.
     *
     * @param dir      where the files go (created if missing)
     * @param members  one member certificate each
     * @param clients  one client certificate and token each, with these roles
     * @param validity how long every certificate is valid
     */
    public static void write(Path dir, List<NodeId> members, Map<String, Set<Role>> clients, Duration validity) {
        Issued ca = DevCertificates.newCa("Tandem development CA", validity);
        DevCertificates.writeCertificates(dir.resolve("ca.pem"), ca.certificate());
        DevCertificates.writeKey(dir.resolve("ca-key.pem"), ca.key());
        for (NodeId id : members) {
            Issued m = DevCertificates.issueMember(ca, id, validity);
            DevCertificates.writeCertificates(dir.resolve(id.value() + ".pem"), m.certificate(), ca.certificate());
            DevCertificates.writeKey(dir.resolve(id.value() + "-key.pem"), m.key());
        }
        StringBuilder tokens = new StringBuilder("# Client tokens this cluster accepts: name roles sha256(token). Written by 'tandem certs'.\n");
        for (var c : clients.entrySet()) {
            Set<String> names = new java.util.TreeSet<>();
            for (Role r : c.getValue()) names.add(r.name().toLowerCase(java.util.Locale.ROOT));
            Issued client = DevCertificates.issueClient(ca, c.getKey(), names, validity);
            DevCertificates.writeCertificates(dir.resolve(c.getKey() + ".pem"), client.certificate(), ca.certificate());
            DevCertificates.writeKey(dir.resolve(c.getKey() + "-key.pem"), client.key());
            String token = TokenStore.newToken();
            writeSecret(dir.resolve(c.getKey() + ".token"), token + "\n");
            tokens.append(TokenStore.line(c.getKey(), c.getValue(), token)).append('\n');
        }
        try {
            Files.writeString(dir.resolve("tokens"), tokens.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve("tokens") + ": " + e.getMessage(), e);
        }
    }

    private static void writeSecret(Path file, String text) {
        try {
            Files.deleteIfExists(file);
            if (Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix")) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
