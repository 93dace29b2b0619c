package io.tandem.storage;

/**
 * Stored data failed validation in a way that recovery must not repair on its own: a corrupt
 * record followed by valid ones, a missing log segment, a damaged meta or snapshot file. Cutting
 * such data could drop writes that were acknowledged, so the store refuses to open and names the
 * place instead; an operator restores the node from a peer or inspects the file.
 */
public final class CorruptStorageException extends StorageException {
    private final String location;
    private final long offset;

    /**
     * @param location the file (absolute path) or, for in-memory stores, the record set concerned
     * @param offset   byte offset of the bad data within {@code location}, or -1 if not applicable
     * @param detail   what is wrong
     */
    public CorruptStorageException(String location, long offset, String detail) {
        super(offset >= 0
                ? "corrupt storage in " + location + " at byte offset " + offset + ": " + detail
                : "corrupt storage in " + location + ": " + detail, null);
        this.location = location;
        this.offset = offset;
    }

    public String location() {
        return location;
    }

    /** Byte offset of the bad data, or -1 when the problem is not at one place (a missing file). */
    public long offset() {
        return offset;
    }
}
