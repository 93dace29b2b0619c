package io.tandem.kv;

/**
 * Size limits of the KV service, enforced when a client encodes a request and again when a replica
 * decodes it, so an oversized request is refused with a typed error instead of bloating the log.
 *
 * @param maxKeyBytes     longest key or scan bound; default 1 KiB
 * @param maxValueBytes   longest value; default 1 MiB
 * @param maxScanEntries  most entries in one scan page; larger requested limits are capped
 * @param maxScanBytes    key and value bytes after which a scan page ends early (it always holds
 *                        at least one entry); default 4 MiB
 */
public record KvLimits(int maxKeyBytes, int maxValueBytes, int maxScanEntries, int maxScanBytes) {
    public static final KvLimits DEFAULTS = new KvLimits(1024, 1024 * 1024, 1_000, 4 * 1024 * 1024);

    public KvLimits {
        if (maxKeyBytes < 1) throw new IllegalArgumentException("maxKeyBytes must be positive: " + maxKeyBytes);
        if (maxValueBytes < 0) throw new IllegalArgumentException("maxValueBytes must not be negative: " + maxValueBytes);
        if (maxScanEntries < 1) throw new IllegalArgumentException("maxScanEntries must be positive: " + maxScanEntries);
        if (maxScanBytes < 1) throw new IllegalArgumentException("maxScanBytes must be positive: " + maxScanBytes);
    }

    void checkKey(byte[] key, String what) {
        if (key.length > maxKeyBytes) {
            throw new KvException(KvException.Reason.KEY_TOO_LARGE,
                    what + " is " + key.length + " bytes; the limit is " + maxKeyBytes);
        }
    }

    void checkValue(byte[] value, String what) {
        if (value.length > maxValueBytes) {
            throw new KvException(KvException.Reason.VALUE_TOO_LARGE,
                    what + " is " + value.length + " bytes; the limit is " + maxValueBytes);
        }
    }
}
