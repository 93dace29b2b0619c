package io.tandem.cli;

import io.tandem.kv.KvException;
import io.tandem.kv.client.KvClientException;
import io.tandem.kv.client.TandemKvClient;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Base of the one-off commands against a running cluster ({@code put}, {@code get}, ...). Exit
 * status: 0 done, 1 a negative answer (key not found, compare-and-set mismatch), 2 bad input (bad
 * flags, a key or value over the size limit), 3 the cluster could not answer (none running, timeout,
 * refused).
 */
abstract class ClientCommand implements Callable<Integer> {
    static final int OK = 0, NEGATIVE = 1, BAD_INPUT = 2, CLUSTER_ERROR = 3;

    @Spec
    CommandSpec spec;

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--hex", description = "Keys and values on the command line are hex (e.g. 00ff); values are printed as hex.")
    boolean hex;

    /** Runs the command with a connected client; returns the exit status. */
    abstract int run(TandemKvClient client, PrintWriter out, PrintWriter err);

    @Override
    public final Integer call() {
        Logging.configureForClient();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (TandemKvClient client = cluster.connect()) {
            return run(client, out, err);
        } catch (ClusterOptions.NoClusterException e) {
            err.println("tandem " + spec.name() + ": " + e.getMessage());
            return CLUSTER_ERROR;
        } catch (io.tandem.transport.tcp.tls.TlsConfigException e) {
            err.println("tandem " + spec.name() + ": " + e.getMessage());
            return BAD_INPUT;
        } catch (KvException e) {
            err.println("tandem " + spec.name() + ": " + e.getMessage() + " (" + e.reason() + ")");
            return BAD_INPUT;
        } catch (KvClientException e) {
            err.println("tandem " + spec.name() + ": " + e.getMessage());
            return CLUSTER_ERROR;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** A key or value argument as bytes (UTF-8, or hex with --hex). */
    byte[] bytes(String arg, String what) {
        if (!hex) return arg.getBytes(StandardCharsets.UTF_8);
        try {
            return HexFormat.of().parseHex(arg.startsWith("0x") ? arg.substring(2) : arg);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), what + " '" + arg + "' is not hex: " + e.getMessage());
        }
    }

    /** Bytes for printing: the text if they are printable UTF-8 (and not --hex), else 0x-prefixed hex. */
    String show(byte[] bytes) {
        return text(bytes).orElseGet(() -> "0x" + HexFormat.of().formatHex(bytes));
    }

    /** Like {@link #show} but text is quoted, for messages. */
    String quoted(byte[] bytes) {
        return text(bytes).map(t -> "'" + t + "'").orElseGet(() -> "0x" + HexFormat.of().formatHex(bytes));
    }

    private Optional<String> text(byte[] bytes) {
        if (hex) return Optional.empty();
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            return s.codePoints().anyMatch(c -> Character.isISOControl(c) && c != '\t') ? Optional.empty() : Optional.of(s);
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
