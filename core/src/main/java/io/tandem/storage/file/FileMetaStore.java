package io.tandem.storage.file;

import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.StorageException;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.stable.StableMetaStore;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Meta records in one small file, {@code meta.dat}, rewritten whole on every {@link #putAll}
 * through {@link FileIo#writeAtomically} (temp file, fsync, rename, fsync of the directory), so a
 * batch of puts costs one atomic replacement. Format (big-endian): magic {@code "TDMT"}, version,
 * record count, then per record {@code int keyLength, key (UTF-8), int valueLength, value}, and a
 * CRC32C of everything before it. The rename is atomic, so a file that fails its checksum is
 * real corruption and is reported, not ignored.
 */
public final class FileMetaStore implements StableMetaStore {
    static final int MAGIC = 0x54444D54; // "TDMT"
    static final int VERSION = 1;
    public static final String FILE_NAME = "meta.dat";

    private final Path file;
    private final boolean fsync;
    private final TreeMap<String, byte[]> records;
    private StorageException failure;
    private boolean closed;

    private FileMetaStore(Path file, boolean fsync, TreeMap<String, byte[]> records) {
        this.file = file;
        this.fsync = fsync;
        this.records = records;
    }

    /** Opens the meta file {@value #FILE_NAME} in {@code directory}, dropping a leftover temp file of an interrupted write. */
    public static FileMetaStore open(Path directory, FlushPolicy flushPolicy) {
        Path file = directory.toAbsolutePath().normalize().resolve(FILE_NAME);
        try {
            Files.createDirectories(directory);
            Files.deleteIfExists(file.resolveSibling(FILE_NAME + ".tmp"));
            TreeMap<String, byte[]> records = Files.exists(file) ? decode(file, Files.readAllBytes(file)) : new TreeMap<>();
            return new FileMetaStore(file, flushPolicy.fsync(), records);
        } catch (IOException e) {
            throw StorageException.fromIOException("reading " + file, e);
        }
    }

    @Override
    public Optional<byte[]> get(String key) {
        checkOpen();
        byte[] value = records.get(key);
        return value == null ? Optional.empty() : Optional.of(value.clone());
    }

    @Override
    public Map<String, byte[]> all() {
        checkOpen();
        TreeMap<String, byte[]> copy = new TreeMap<>();
        records.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }

    @Override
    public void putAll(Map<String, byte[]> values) {
        checkOpen();
        if (failure != null) {
            throw new StorageFailedException("meta store " + file + " failed earlier and accepts no more writes: " + failure.getMessage(), failure);
        }
        TreeMap<String, byte[]> next = new TreeMap<>(records);
        values.forEach((key, value) -> {
            StableMetaStore.checkRecord(key, value);
            next.put(key, value.clone());
        });
        try {
            FileIo.writeAtomically(file, encode(next), fsync);
        } catch (IOException e) {
            failure = StorageException.fromIOException("writing " + file, e);
            throw failure;
        }
        records.clear();
        records.putAll(next);
    }

    @Override
    public void close() {
        closed = true;
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("meta store " + file + " is closed");
    }

    static byte[] encode(Map<String, byte[]> records) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeInt(records.size());
        for (Map.Entry<String, byte[]> record : records.entrySet()) {
            byte[] key = record.getKey().getBytes(StandardCharsets.UTF_8);
            out.writeInt(key.length);
            out.write(key);
            out.writeInt(record.getValue().length);
            out.write(record.getValue());
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        out.writeInt((int) crc.getValue());
        return bytes.toByteArray();
    }

    private static TreeMap<String, byte[]> decode(Path file, byte[] content) {
        String where = file.toString();
        if (content.length < 16) throw new CorruptStorageException(where, 0, "meta file of " + content.length + " bytes is too short");
        CRC32C crc = new CRC32C();
        crc.update(content, 0, content.length - 4);
        ByteBuffer buffer = ByteBuffer.wrap(content);
        int stored = buffer.getInt(content.length - 4);
        if ((int) crc.getValue() != stored) {
            throw new CorruptStorageException(where, 0, "meta file checksum mismatch (stored " + Integer.toHexString(stored)
                    + ", computed " + Integer.toHexString((int) crc.getValue()) + ")");
        }
        if (buffer.getInt() != MAGIC) throw new CorruptStorageException(where, 0, "not a meta file (bad magic)");
        int version = buffer.getInt();
        if (version != VERSION) throw new CorruptStorageException(where, 4, "unsupported meta file version " + version);
        TreeMap<String, byte[]> records = new TreeMap<>();
        try {
            int count = buffer.getInt();
            for (int i = 0; i < count; i++) {
                byte[] key = new byte[buffer.getInt()];
                buffer.get(key);
                byte[] value = new byte[buffer.getInt()];
                buffer.get(value);
                records.put(new String(key, StandardCharsets.UTF_8), value);
            }
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new CorruptStorageException(where, buffer.position(), "meta record runs past the end of the file");
        }
        return records;
    }
}
