package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.kv.testing.InJvmCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code tandem certs} makes the files a secured cluster runs on, and the one-off commands use them:
 * as the app client (read, write) a membership change is refused, as admin it is done; tokens,
 * a credentials file, and a plaintext client refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureCliTest {
    private Path certs;
    private InJvmCluster cluster;
    private String members;

    record Run(int exit, String out, String err) {}

    @BeforeAll
    void start(@TempDir Path tmp) {
        certs = tmp.resolve("certs");
        Run made = raw("certs", "--dir", certs.toString(), "--members", "n1,n2,n3");
        assertThat(made.exit()).as(made.err()).isZero();
        assertThat(made.out()).contains("n1.pem, n1-key.pem").contains("admin.pem, admin-key.pem, admin.token").contains("--tls-dir");
        for (String f : List.of("ca.pem", "ca-key.pem", "n1.pem", "n3-key.pem", "admin.pem", "app-key.pem", "tokens", "admin.token", "app.token")) {
            assertThat(certs.resolve(f)).exists();
        }
        cluster = InJvmCluster.start(tmp.resolve("data"), 3, Map.of("tls-dir", certs.toString(), "client-tokens", certs.resolve("tokens").toString()));
        cluster.awaitLeader(Duration.ofSeconds(30));
        members = String.join(",", cluster.clientAddresses().stream().map(Object::toString).toList());
    }

    @AfterAll
    void stop() {
        if (cluster != null) cluster.close();
    }

    private static Run raw(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private Run tandem(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, "--members=" + members);
        all.add(2, "--timeout=5s");
        return raw(all.toArray(String[]::new));
    }

    @Test
    void certsRefusesToReplaceACaUnlessForced() {
        Run again = raw("certs", "--dir", certs.toString());
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err()).contains("exists; pass --force");
    }

    @Test
    void theAppClientWritesButCannotChangeMembershipTheAdminCan() {
        String dir = certs.toString();
        assertThat(tandem("put", "cli-sec", "v", "--tls-dir", dir, "--as", "app")).isEqualTo(new Run(0, "OK\n", ""));
        Run refused = tandem("member", "remove", "n2", "--tls-dir", dir, "--as", "app");
        assertThat(refused.exit()).isEqualTo(3);
        assertThat(refused.err()).contains("FORBIDDEN").contains("needs the admin role");
        int leader = cluster.awaitLeader(Duration.ofSeconds(30));
        String target = InJvmCluster.id((leader + 1) % 3);
        Run transfer = tandem("member", "transfer", target, "--tls-dir", dir); // --as defaults to admin when admin.pem is there
        assertThat(transfer).isEqualTo(new Run(0, "OK: transfer " + target + "\n", ""));
    }

    @Test
    void tokensCredentialFilesAndPlaintextClients() throws Exception {
        assertThat(tandem("put", "cli-token", "t", "--ca", certs.resolve("ca.pem").toString(), "--token-file", certs.resolve("app.token").toString()))
                .isEqualTo(new Run(0, "OK\n", ""));
        Path credentials = certs.resolve("reader.conf");
        Files.writeString(credentials, "# as the admin\ntls-dir = " + certs + "\nas = admin\n");
        assertThat(tandem("get", "cli-token", "--credentials", credentials.toString())).isEqualTo(new Run(0, "t\n", ""));
        Run plaintext = tandem("get", "cli-token");
        assertThat(plaintext.exit()).isEqualTo(3);
        Run anonymous = tandem("get", "cli-token", "--ca", certs.resolve("ca.pem").toString());
        assertThat(anonymous.exit()).isEqualTo(3);
        assertThat(anonymous.err()).contains("UNAUTHENTICATED");
        Run badFiles = tandem("get", "cli-token", "--ca", certs.resolve("nope.pem").toString());
        assertThat(badFiles.exit()).isEqualTo(2);
        assertThat(badFiles.err()).contains("nope.pem").contains("does not exist");
    }
}
