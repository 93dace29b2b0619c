package io.tandem.kv;

import static io.tandem.kv.Wire.sizeOf;
import static io.tandem.kv.Wire.varintSize;

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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The binary encoding of KV requests and results: what clients put in the replicated log and what
 * replicas send back. Hand-written rather than Kryo because these bytes are stored in logs and
 * snapshots and compared across replicas: the encoding must be deterministic (one encoding per
 * value, checked on decode), stable across releases and JVMs without a class registry, and tiny
 * (a put costs 4 bytes plus its key and value).
 *
 * <pre>
 * request  = version:u8(1) op:u8 body
 *   PUT    (1)  key value
 *   DELETE (2)  key
 *   CAS    (3)  key flags:u8 [expected] [update]      flags bit0: expected present, bit1: update present
 *   GET    (16) key
 *   SCAN   (17) flags:u8 [from] [to] limit:varint     flags bit0: from present, bit1: to present
 * result   = version:u8(1) tag:u8 body
 *   FOUND         (1) value
 *   NOT_FOUND     (2)
 *   CAS_SUCCEEDED (3)
 *   CAS_FAILED    (4) flags:u8 [current]              flags bit0: current present
 *   PAGE          (5) count:varint (key value)* flags:u8 [nextFrom]
 *   FAILED        (6) reason:u8 message
 * key, value, message = length:varint bytes           varint: unsigned LEB128, canonical, &lt;= 2^31-1
 * </pre>
 *
 * Encoding a request enforces the {@link KvLimits} and throws {@link KvException}; decoding
 * enforces them again (the log may hold bytes from any client) and throws {@link KvException} for
 * anything that is not exactly a valid encoding, never another exception.
 */
public final class KvCodec {
    public static final int VERSION = 1;

    static final int PUT = 1;
    static final int DELETE = 2;
    static final int CAS = 3;
    static final int GET = 16;
    static final int SCAN = 17;

    static final int FOUND = 1;
    static final int NOT_FOUND = 2;
    static final int CAS_SUCCEEDED = 3;
    static final int CAS_FAILED = 4;
    static final int PAGE = 5;
    static final int FAILED = 6;

    private static final int FIRST_PRESENT = 1;
    private static final int SECOND_PRESENT = 2;

    private final KvLimits limits;

    public KvCodec(KvLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    public KvLimits limits() {
        return limits;
    }

    // ---- requests ----

    /** Encodes a command for submission; throws {@link KvException} if it breaks a limit. */
    public byte[] encode(KvCommand command) {
        validate(command);
        return switch (command) {
            case Put(byte[] key, byte[] value) ->
                    new Wire.Writer(2 + sizeOf(key) + sizeOf(value)).writeByte(VERSION).writeByte(PUT)
                            .writeBytes(key).writeBytes(value).finish();
            case Delete(byte[] key) ->
                    new Wire.Writer(2 + sizeOf(key)).writeByte(VERSION).writeByte(DELETE).writeBytes(key).finish();
            case CompareAndSet(byte[] key, byte[] expected, byte[] update) -> {
                Wire.Writer w = new Wire.Writer(3 + sizeOf(key) + optionalSize(expected) + optionalSize(update))
                        .writeByte(VERSION).writeByte(CAS).writeBytes(key)
                        .writeByte(flags(expected != null, update != null));
                if (expected != null) w.writeBytes(expected);
                if (update != null) w.writeBytes(update);
                yield w.finish();
            }
        };
    }

    /** Encodes a query; throws {@link KvException} if it breaks a limit. */
    public byte[] encode(KvQuery query) {
        validate(query);
        return switch (query) {
            case Get(byte[] key) -> new Wire.Writer(2 + sizeOf(key)).writeByte(VERSION).writeByte(GET).writeBytes(key).finish();
            case Scan(byte[] from, byte[] to, int limit) -> {
                Wire.Writer w = new Wire.Writer(3 + optionalSize(from) + optionalSize(to) + varintSize(limit))
                        .writeByte(VERSION).writeByte(SCAN).writeByte(flags(from != null, to != null));
                if (from != null) w.writeBytes(from);
                if (to != null) w.writeBytes(to);
                yield w.writeVarint(limit).finish();
            }
        };
    }

    /** Decodes and validates a command; throws {@link KvException} (only) if it is not one. */
    public KvCommand decodeCommand(byte[] bytes) {
        return readCommand(bytes, true);
    }

    /**
     * {@link #decodeCommand(byte[])} of the command in {@code bytes[offset, offset + length)} (a range of a log
     * entry: issue 25). The same checks and exceptions; the command's key and value are copies, never views
     * of {@code bytes}.
     */
    public KvCommand decodeCommand(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return readCommand(open(bytes, offset, length, "command"), true);
    }

    /** Where a put's key lies in the bytes it was decoded from, and its value (a copy): {@link #decodePut}. */
    static final class PutInRange {
        int keyFrom;
        int keyTo;
        byte[] value;
    }

    /**
     * If the command in {@code bytes[offset, offset + length)} is a put: checks it exactly as {@link #decodeCommand}
     * does (same exceptions), copies its value, records its key's range in {@code out} and returns true; returns false
     * for any other operation, which the caller decodes with {@link #decodeCommand} (issue 25, part 15: the key is not
     * copied, so a put that overwrites makes no key array; the tree copies the range when it inserts).
     */
    boolean decodePut(byte[] bytes, int offset, int length, PutInRange out) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        Wire.Reader in = open(bytes, offset, length, "command");
        if (in.readByte("operation") != PUT) return false;
        int keyLength = in.skipBytes("key", limits.maxKeyBytes(), Reason.KEY_TOO_LARGE);
        int keyTo = in.position();
        byte[] value = readValue(in, "value");
        in.expectEnd();
        out.keyFrom = keyTo - keyLength;
        out.keyTo = keyTo;
        out.value = value;
        return true;
    }

    /**
     * Validates a command exactly as {@link #decodeCommand} does (same checks, same exceptions) without building it:
     * the server checks every command before it takes a log slot, and building the key and value there copied
     * them once more per put, only to be dropped (issue 25).
     */
    public void checkCommand(byte[] bytes) {
        readCommand(bytes, false);
    }

    /** The command in {@code bytes}, or null (after the same checks) if not {@code build}. */
    private KvCommand readCommand(byte[] bytes, boolean build) {
        return readCommand(open(bytes, "command"), build);
    }

    private KvCommand readCommand(Wire.Reader in, boolean build) {
        int op = in.readByte("operation");
        KvCommand command = switch (op) {
            case PUT -> {
                byte[] key = readKey(in, "key", build);
                byte[] value = readValue(in, "value", build);
                yield build ? new Put(key, value) : null;
            }
            case DELETE -> {
                byte[] key = readKey(in, "key", build);
                yield build ? new Delete(key) : null;
            }
            case CAS -> {
                byte[] key = readKey(in, "key", build);
                int flags = readFlags(in);
                byte[] expected = (flags & FIRST_PRESENT) != 0 ? readValue(in, "expected value", build) : null;
                byte[] update = (flags & SECOND_PRESENT) != 0 ? readValue(in, "new value", build) : null;
                yield build ? new CompareAndSet(key, expected, update) : null;
            }
            case GET, SCAN -> throw new KvException(Reason.UNKNOWN_OPERATION,
                    "operation " + op + " is a query; submit it as a query, not a command");
            default -> throw new KvException(Reason.UNKNOWN_OPERATION, "unknown command operation " + op);
        };
        in.expectEnd();
        return command;
    }

    /** Decodes and validates a query; throws {@link KvException} (only) if it is not one. */
    public KvQuery decodeQuery(byte[] bytes) {
        Wire.Reader in = open(bytes, "query");
        int op = in.readByte("operation");
        KvQuery query = switch (op) {
            case GET -> new Get(readKey(in, "key"));
            case SCAN -> {
                int flags = readFlags(in);
                byte[] from = (flags & FIRST_PRESENT) != 0 ? readKey(in, "scan start") : null;
                byte[] to = (flags & SECOND_PRESENT) != 0 ? readKey(in, "scan end") : null;
                int limit = in.readVarint("scan limit");
                if (limit < 1) throw new KvException(Reason.INVALID_ARGUMENT, "scan limit must be positive: " + limit);
                yield new Scan(from, to, limit);
            }
            case PUT, DELETE, CAS -> throw new KvException(Reason.UNKNOWN_OPERATION,
                    "operation " + op + " is a command; it must go through the replicated log, not a query");
            default -> throw new KvException(Reason.UNKNOWN_OPERATION, "unknown query operation " + op);
        };
        in.expectEnd();
        return query;
    }

    /** Checks a command against the limits; throws {@link KvException}. */
    public void validate(KvCommand command) {
        switch (command) {
            case Put(byte[] key, byte[] value) -> {
                limits.checkKey(key, "key");
                limits.checkValue(value, "value");
            }
            case Delete(byte[] key) -> limits.checkKey(key, "key");
            case CompareAndSet(byte[] key, byte[] expected, byte[] update) -> {
                limits.checkKey(key, "key");
                if (expected != null) limits.checkValue(expected, "expected value");
                if (update != null) limits.checkValue(update, "new value");
            }
        }
    }

    /** Checks a query against the limits; throws {@link KvException}. */
    public void validate(KvQuery query) {
        switch (query) {
            case Get(byte[] key) -> limits.checkKey(key, "key");
            case Scan(byte[] from, byte[] to, int limit) -> {
                if (from != null) limits.checkKey(from, "scan start");
                if (to != null) limits.checkKey(to, "scan end");
                if (limit < 1) throw new KvException(Reason.INVALID_ARGUMENT, "scan limit must be positive: " + limit);
            }
        }
    }

    // ---- results ----

    public byte[] encode(KvResult result) {
        return encodeResult(result);
    }

    /** {@link #encode(KvResult)}, which depends on no limit: what {@link KvResult#encode()} runs. */
    static byte[] encodeResult(KvResult result) {
        return switch (result) {
            case Found(byte[] value) -> new Wire.Writer(2 + sizeOf(value)).writeByte(VERSION).writeByte(FOUND).writeBytes(value).finish();
            case NotFound() -> new Wire.Writer(2).writeByte(VERSION).writeByte(NOT_FOUND).finish();
            case CasSucceeded() -> new Wire.Writer(2).writeByte(VERSION).writeByte(CAS_SUCCEEDED).finish();
            case CasFailed(byte[] current) -> {
                Wire.Writer w = new Wire.Writer(3 + optionalSize(current)).writeByte(VERSION).writeByte(CAS_FAILED)
                        .writeByte(flags(current != null, false));
                if (current != null) w.writeBytes(current);
                yield w.finish();
            }
            case Page(List<Entry> entries, byte[] nextFrom) -> {
                int size = 3 + varintSize(entries.size()) + optionalSize(nextFrom);
                for (Entry e : entries) size += sizeOf(e.key()) + sizeOf(e.value());
                Wire.Writer w = new Wire.Writer(size).writeByte(VERSION).writeByte(PAGE).writeVarint(entries.size());
                for (Entry e : entries) w.writeBytes(e.key()).writeBytes(e.value());
                w.writeByte(flags(nextFrom != null, false));
                if (nextFrom != null) w.writeBytes(nextFrom);
                yield w.finish();
            }
            case Failed(Reason reason, String message) -> {
                byte[] text = message.getBytes(StandardCharsets.UTF_8);
                yield new Wire.Writer(3 + sizeOf(text)).writeByte(VERSION).writeByte(FAILED).writeByte(reason.code())
                        .writeBytes(text).finish();
            }
        };
    }

    /**
     * Writes the bytes {@link #encode(KvResult)} gives for {@code result} at {@code out}'s writer index, the common
     * results without an intermediate array (issue 25: the leader's reply to its client is written straight into
     * the reply buffer). {@code KvCodecTest} checks that both give the same bytes.
     */
    public static void writeResult(KvResult result, io.netty.buffer.ByteBuf out) {
        switch (result) {
            case Found(byte[] value) -> {
                out.writeByte(VERSION).writeByte(FOUND);
                for (int v = value.length; ; v >>>= 7) { // the length as Wire.Writer's varint
                    if ((v & ~0x7F) == 0) {
                        out.writeByte(v);
                        break;
                    }
                    out.writeByte((v & 0x7F) | 0x80);
                }
                out.writeBytes(value);
            }
            case NotFound() -> out.writeByte(VERSION).writeByte(NOT_FOUND);
            case CasSucceeded() -> out.writeByte(VERSION).writeByte(CAS_SUCCEEDED);
            default -> out.writeBytes(encodeResult(result));
        }
    }

    /** An upper bound of {@link #writeResult}'s bytes for the common results, a guess for the others (for sizing buffers). */
    public static int resultSizeHint(KvResult result) {
        return result instanceof Found(byte[] value) ? 7 + value.length : 64;
    }

    /** Decodes a result; throws {@link KvException} (only) if the bytes are not a valid result. */
    public KvResult decodeResult(byte[] bytes) {
        Wire.Reader in = open(bytes, "result");
        int tag = in.readByte("result tag");
        KvResult result = switch (tag) {
            case FOUND -> new Found(readAny(in, "value"));
            case NOT_FOUND -> new NotFound();
            case CAS_SUCCEEDED -> new CasSucceeded();
            case CAS_FAILED -> new CasFailed((readFlags(in, FIRST_PRESENT) & FIRST_PRESENT) != 0 ? readAny(in, "current value") : null);
            case PAGE -> {
                int count = in.readVarint("entry count");
                // Each entry takes at least two bytes: refuse an impossible count before allocating.
                if (count > in.remaining() / 2) throw Wire.Reader.malformed("page declares " + count + " entries in " + in.remaining() + " bytes");
                List<Entry> entries = new ArrayList<>(count);
                for (int i = 0; i < count; i++) entries.add(new Entry(readAny(in, "key"), readAny(in, "value")));
                byte[] nextFrom = (readFlags(in, FIRST_PRESENT) & FIRST_PRESENT) != 0 ? readAny(in, "next key") : null;
                yield new Page(entries, nextFrom);
            }
            case FAILED -> {
                int code = in.readByte("reason");
                Reason reason = Reason.ofCode(code);
                if (reason == null) throw Wire.Reader.malformed("unknown failure reason " + code);
                yield new Failed(reason, in.readString("message"));
            }
            default -> throw Wire.Reader.malformed("unknown result tag " + tag);
        };
        in.expectEnd();
        return result;
    }

    // ---- helpers ----

    private static Wire.Reader open(byte[] bytes, String what) {
        return open(bytes, 0, bytes == null ? 0 : bytes.length, what);
    }

    private static Wire.Reader open(byte[] bytes, int offset, int length, String what) {
        if (bytes == null || length == 0) throw Wire.Reader.malformed("empty " + what);
        Wire.Reader in = new Wire.Reader(bytes, offset, length);
        int version = in.readByte("version");
        if (version != VERSION) {
            throw new KvException(Reason.UNSUPPORTED_VERSION,
                    what + " encoding version " + version + " is not supported (this build speaks " + VERSION + ")");
        }
        return in;
    }

    private byte[] readKey(Wire.Reader in, String field) {
        return in.readBytes(field, limits.maxKeyBytes(), Reason.KEY_TOO_LARGE);
    }

    private byte[] readValue(Wire.Reader in, String field) {
        return in.readBytes(field, limits.maxValueBytes(), Reason.VALUE_TOO_LARGE);
    }

    /** A key, or only its checks (null) if not {@code build}. */
    private byte[] readKey(Wire.Reader in, String field, boolean build) {
        if (build) return readKey(in, field);
        in.skipBytes(field, limits.maxKeyBytes(), Reason.KEY_TOO_LARGE);
        return null;
    }

    /** A value, or only its checks (null) if not {@code build}. */
    private byte[] readValue(Wire.Reader in, String field, boolean build) {
        if (build) return readValue(in, field);
        in.skipBytes(field, limits.maxValueBytes(), Reason.VALUE_TOO_LARGE);
        return null;
    }

    /** Results are bounded by the bytes received, not by the request limits. */
    private static byte[] readAny(Wire.Reader in, String field) {
        return in.readBytes(field, Integer.MAX_VALUE, Reason.MALFORMED);
    }

    private static int readFlags(Wire.Reader in) {
        return readFlags(in, FIRST_PRESENT | SECOND_PRESENT);
    }

    private static int readFlags(Wire.Reader in, int allowed) {
        int flags = in.readByte("flags");
        if ((flags & ~allowed) != 0) throw Wire.Reader.malformed(String.format("unknown flag bits 0x%02X", flags & ~allowed));
        return flags;
    }

    private static int flags(boolean first, boolean second) {
        return (first ? FIRST_PRESENT : 0) | (second ? SECOND_PRESENT : 0);
    }

    private static int optionalSize(byte[] bytes) {
        return bytes == null ? 0 : sizeOf(bytes);
    }
}
