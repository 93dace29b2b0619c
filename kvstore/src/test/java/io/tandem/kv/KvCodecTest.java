package io.tandem.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.kv.KvCommand.CompareAndSet;
import io.tandem.kv.KvCommand.Delete;
import io.tandem.kv.KvCommand.Put;
import io.tandem.kv.KvException.Reason;
import io.tandem.kv.KvQuery.Get;
import io.tandem.kv.KvQuery.Scan;
import io.tandem.kv.KvResult.CasFailed;
import io.tandem.kv.KvResult.CasSucceeded;
import io.tandem.kv.KvResult.Failed;
import io.tandem.kv.KvResult.Found;
import io.tandem.kv.KvResult.NotFound;
import io.tandem.kv.KvResult.Page;
import io.tandem.kv.btree.Entry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class KvCodecTest {
    private static final KvLimits SMALL = new KvLimits(8, 16, 100, 1_000);
    private final KvCodec codec = new KvCodec(KvLimits.DEFAULTS);
    private final KvCodec small = new KvCodec(SMALL);

    static List<KvCommand> sampleCommands() {
        return List.of(
                new Put(bytes("k"), bytes("v")),
                new Put(new byte[0], new byte[0]),
                new Put(new byte[1024], new byte[1024 * 1024]),
                new Delete(bytes("k")),
                new Delete(new byte[0]),
                new CompareAndSet(bytes("k"), null, null),
                new CompareAndSet(bytes("k"), bytes("old"), null),
                new CompareAndSet(bytes("k"), null, bytes("new")),
                new CompareAndSet(bytes("k"), new byte[0], new byte[200]));
    }

    static List<KvQuery> sampleQueries() {
        return List.of(
                new Get(bytes("k")), new Get(new byte[0]),
                new Scan(null, null, 1), new Scan(bytes("a"), null, 10), new Scan(null, bytes("z"), 300),
                new Scan(bytes("a"), bytes("z"), Integer.MAX_VALUE));
    }

    static List<KvResult> sampleResults() {
        return List.of(
                new Found(bytes("v")), new Found(new byte[0]), new NotFound(), new CasSucceeded(),
                new CasFailed(null), new CasFailed(bytes("current")),
                new Page(List.of(), null),
                new Page(List.of(new Entry(bytes("a"), bytes("1")), new Entry(new byte[0], new byte[0])), bytes("b")),
                new Failed(Reason.KEY_TOO_LARGE, "key is 2000 bytes; the limit is 1024 ✓"));
    }

    @Test
    void everyRequestAndResultRoundTrips() {
        for (KvCommand command : sampleCommands()) assertThat(codec.decodeCommand(codec.encode(command))).isEqualTo(command);
        for (KvQuery query : sampleQueries()) assertThat(codec.decodeQuery(codec.encode(query))).isEqualTo(query);
        for (KvResult result : sampleResults()) assertThat(codec.decodeResult(codec.encode(result))).isEqualTo(result);
    }

    @Test
    void theEncodingIsPinned() {
        // Version 1, PUT, key "k" (length 1), value of 300 bytes (varint 0xAC 0x02).
        byte[] put = codec.encode(new Put(bytes("k"), new byte[300]));
        assertThat(Arrays.copyOf(put, 6)).containsExactly(1, 1, 1, 'k', 0xAC, 0x02);
        assertThat(put).hasSize(6 + 300);
        assertThat(codec.encode(new CompareAndSet(bytes("k"), null, bytes("n")))).containsExactly(1, 3, 1, 'k', 2, 1, 'n');
        assertThat(codec.encode(new Scan(null, bytes("z"), 5))).containsExactly(1, 17, 2, 1, 'z', 5);
        assertThat(codec.encode(new NotFound())).containsExactly(1, 2);
        assertThat(codec.encode(new Failed(Reason.MALFORMED, "x"))).containsExactly(1, 6, 1, 1, 'x');
    }

    @Test
    void encodingEnforcesTheLimitsWithTypedErrors() {
        assertRefused(() -> small.encode(new Put(new byte[9], new byte[1])), Reason.KEY_TOO_LARGE, "key is 9 bytes; the limit is 8");
        assertRefused(() -> small.encode(new Put(new byte[8], new byte[17])), Reason.VALUE_TOO_LARGE, "value is 17 bytes; the limit is 16");
        assertRefused(() -> small.encode(new Delete(new byte[9])), Reason.KEY_TOO_LARGE, "key");
        assertRefused(() -> small.encode(new CompareAndSet(new byte[1], new byte[17], null)), Reason.VALUE_TOO_LARGE, "expected value");
        assertRefused(() -> small.encode(new CompareAndSet(new byte[1], null, new byte[17])), Reason.VALUE_TOO_LARGE, "new value");
        assertRefused(() -> small.encode(new Get(new byte[9])), Reason.KEY_TOO_LARGE, "key");
        assertRefused(() -> small.encode(new Scan(new byte[9], null, 1)), Reason.KEY_TOO_LARGE, "scan start");
        assertRefused(() -> small.encode(new Scan(null, new byte[9], 1)), Reason.KEY_TOO_LARGE, "scan end");
        assertRefused(() -> small.encode(new Scan(null, null, 0)), Reason.INVALID_ARGUMENT, "scan limit");
        // Exactly at the limits is fine.
        assertThat(small.decodeCommand(small.encode(new Put(new byte[8], new byte[16])))).isEqualTo(new Put(new byte[8], new byte[16]));
        // The default limits: 1 KiB keys, 1 MiB values.
        assertRefused(() -> codec.encode(new Put(new byte[1025], new byte[0])), Reason.KEY_TOO_LARGE, "limit is 1024");
        assertRefused(() -> codec.encode(new Put(new byte[1], new byte[1024 * 1024 + 1])), Reason.VALUE_TOO_LARGE, "limit is 1048576");
    }

    @Test
    void decodingEnforcesTheLimitsAgain() {
        // A client with larger limits than the replica: the replica refuses on decode.
        KvCodec generous = new KvCodec(new KvLimits(100, 100, 100, 1_000));
        assertRefused(() -> small.decodeCommand(generous.encode(new Put(new byte[9], new byte[1]))), Reason.KEY_TOO_LARGE, "key is 9 bytes");
        assertRefused(() -> small.decodeCommand(generous.encode(new Put(new byte[1], new byte[17]))), Reason.VALUE_TOO_LARGE, "value");
        assertRefused(() -> small.decodeCommand(generous.encode(new CompareAndSet(new byte[1], new byte[17], null))), Reason.VALUE_TOO_LARGE, "expected");
        assertRefused(() -> small.decodeQuery(generous.encode(new Scan(null, new byte[9], 1))), Reason.KEY_TOO_LARGE, "scan end");
        // A declared length above the limit is refused before the bytes are even looked at.
        assertRefused(() -> small.decodeCommand(new byte[] {1, 1, (byte) 0xFF, (byte) 0xFF, 0x7F}), Reason.KEY_TOO_LARGE, "key");
        assertRefused(() -> codec.decodeQuery(new byte[] {1, 17, 0, 0}), Reason.INVALID_ARGUMENT, "scan limit must be positive");
    }

    @Test
    void malformedInputIsRefusedWithAReason() {
        assertRefused(() -> codec.decodeCommand(null), Reason.MALFORMED, "empty command");
        assertRefused(() -> codec.decodeCommand(new byte[0]), Reason.MALFORMED, "empty command");
        assertRefused(() -> codec.decodeCommand(new byte[] {2, 1, 0, 0}), Reason.UNSUPPORTED_VERSION, "version 2");
        assertRefused(() -> codec.decodeCommand(new byte[] {1, 99}), Reason.UNKNOWN_OPERATION, "unknown command operation 99");
        assertRefused(() -> codec.decodeCommand(codec.encode(new Get(bytes("k")))), Reason.UNKNOWN_OPERATION, "is a query");
        assertRefused(() -> codec.decodeQuery(codec.encode(new Delete(bytes("k")))), Reason.UNKNOWN_OPERATION, "is a command");
        assertRefused(() -> codec.decodeCommand(new byte[] {1, 1}), Reason.MALFORMED, "truncated");
        assertRefused(() -> codec.decodeCommand(new byte[] {1, 2, 5, 'a'}), Reason.MALFORMED, "declares 5 bytes but only 1 remain");
        assertRefused(() -> codec.decodeCommand(new byte[] {1, 2, 1, 'a', 0}), Reason.MALFORMED, "1 unexpected bytes");
        assertRefused(() -> codec.decodeCommand(new byte[] {1, 3, 1, 'a', 4}), Reason.MALFORMED, "unknown flag bits 0x04");
        assertRefused(() -> codec.decodeCommand(new byte[] {1, 2, (byte) 0x81, 0x00, 'a'}), Reason.MALFORMED, "non-canonical");
        assertRefused(() -> codec.decodeCommand(new byte[] {1, 2, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10}),
                Reason.MALFORMED, "exceeds 2^31-1");
        assertRefused(() -> codec.decodeResult(new byte[] {1, 9}), Reason.MALFORMED, "unknown result tag 9");
        assertRefused(() -> codec.decodeResult(new byte[] {1, 6, 99, 0}), Reason.MALFORMED, "unknown failure reason 99");
        assertRefused(() -> codec.decodeResult(new byte[] {1, 5, 100, 0}), Reason.MALFORMED, "page declares 100 entries");
    }

    @Test
    void everyTruncationOfEveryValidEncodingIsRefused() {
        List<byte[]> commands = new ArrayList<>();
        for (KvCommand c : sampleCommands()) if (encodedSize(c) < 5_000) commands.add(codec.encode(c));
        checkPrefixes(commands, codec::decodeCommand);
        checkPrefixes(sampleQueries().stream().map(codec::encode).toList(), codec::decodeQuery);
        checkPrefixes(sampleResults().stream().map(codec::encode).toList(), codec::decodeResult);
    }

    @Test
    void randomAndMutatedBytesNeverEscapeAsAnythingButKvException() {
        Random random = new Random(2024);
        List<byte[]> seeds = new ArrayList<>();
        for (KvCommand c : sampleCommands()) if (encodedSize(c) < 5_000) seeds.add(codec.encode(c));
        for (KvQuery q : sampleQueries()) seeds.add(codec.encode(q));
        for (KvResult r : sampleResults()) seeds.add(codec.encode(r));
        int refused = 0;
        for (int i = 0; i < 60_000; i++) {
            byte[] input;
            if (i % 3 == 0) {
                input = new byte[random.nextInt(24)];
                random.nextBytes(input);
                if (input.length > 0 && random.nextBoolean()) input[0] = KvCodec.VERSION;
            } else {
                input = seeds.get(random.nextInt(seeds.size())).clone();
                for (int flips = 1 + random.nextInt(3); flips > 0 && input.length > 0; flips--) {
                    input[random.nextInt(input.length)] = (byte) random.nextInt(256);
                }
            }
            for (Function<byte[], ?> decoder : List.<Function<byte[], ?>>of(codec::decodeCommand, small::decodeCommand,
                    codec::decodeQuery, codec::decodeResult)) {
                // Plain checks: an AssertJ chain per attempt would dominate the run time.
                try {
                    if (decoder.apply(input) == null) throw new AssertionError("null decoding of " + HexFormat.of().formatHex(input));
                } catch (KvException e) {
                    if (e.reason() == null || e.getMessage().isBlank()) throw new AssertionError("reasonless refusal", e);
                    refused++;
                } catch (RuntimeException e) {
                    throw new AssertionError("decoding " + HexFormat.of().formatHex(input) + " threw " + e, e);
                }
            }
        }
        assertThat(refused).isPositive();
    }

    /**
     * The server's check before a command takes a log slot ({@link KvCodec#checkCommand}, which builds nothing) refuses
     * exactly what {@link KvCodec#decodeCommand} refuses, with the same reason and message: valid commands, every
     * truncation, oversized fields (the small limits), queries and results in a command's place, random and mutated bytes.
     */
    @Test
    void checkCommandAgreesWithDecodeCommand() {
        Random random = new Random(7);
        List<byte[]> seeds = new ArrayList<>();
        for (KvCommand c : sampleCommands()) if (encodedSize(c) < 5_000) seeds.add(codec.encode(c));
        for (KvQuery q : sampleQueries()) seeds.add(codec.encode(q));
        for (KvResult r : sampleResults()) seeds.add(codec.encode(r));
        List<byte[]> inputs = new ArrayList<>(seeds);
        for (byte[] s : seeds) for (int length = 0; length < s.length; length++) inputs.add(Arrays.copyOf(s, length));
        for (int i = 0; i < 30_000; i++) {
            byte[] input = seeds.get(random.nextInt(seeds.size())).clone();
            for (int flips = 1 + random.nextInt(3); flips > 0 && input.length > 0; flips--) input[random.nextInt(input.length)] = (byte) random.nextInt(256);
            inputs.add(input);
        }
        int accepted = 0;
        for (byte[] input : inputs) {
            for (KvCodec c : List.of(codec, small)) {
                String decoded = outcome(() -> c.decodeCommand(input));
                String checked = outcome(() -> c.checkCommand(input));
                if (!decoded.equals(checked)) {
                    throw new AssertionError("decode: " + decoded + ", check: " + checked + " for " + HexFormat.of().formatHex(input));
                }
                if (decoded.equals("ok")) accepted++;
            }
        }
        assertThat(accepted).isGreaterThanOrEqualTo(sampleCommands().size());
    }

    /** "ok", or the refusal's reason and message. */
    private static String outcome(Runnable call) {
        try {
            call.run();
            return "ok";
        } catch (KvException e) {
            return e.reason() + ": " + e.getMessage();
        }
    }

    @Test
    void failedResultsThrowTheirExceptionOnDemand() {
        KvResult failed = new Failed(Reason.VALUE_TOO_LARGE, "too big");
        assertRefused(failed::orThrow, Reason.VALUE_TOO_LARGE, "too big");
        KvResult found = new Found(bytes("v"));
        assertThat(found.orThrow()).isSameAs(found);
        for (Reason reason : Reason.values()) assertThat(Reason.ofCode(reason.code())).isSameAs(reason);
    }

    private void checkPrefixes(List<byte[]> encodings, Function<byte[], ?> decoder) {
        for (byte[] full : encodings) {
            for (int length = 0; length < full.length; length++) {
                byte[] prefix = Arrays.copyOf(full, length);
                assertThatThrownBy(() -> decoder.apply(prefix))
                        .as("prefix of %d of %d bytes", length, full.length)
                        .isInstanceOfSatisfying(KvException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
            }
        }
    }

    private int encodedSize(KvCommand command) {
        return codec.encode(command).length;
    }

    static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Reason reason, String message) {
        assertThatThrownBy(call).isInstanceOfSatisfying(KvException.class, e -> {
            assertThat(e.reason()).isEqualTo(reason);
            assertThat(e.getMessage()).contains(message);
        });
    }

    static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
