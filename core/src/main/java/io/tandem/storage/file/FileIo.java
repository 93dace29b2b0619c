package io.tandem.storage.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** File-system steps shared by the file stores; every one that makes something durable says so. */
final class FileIo {
    private FileIo() {}

    /**
     * Makes the directory's entries (files created, renamed or deleted in it) durable. Without this
     * a new segment or a renamed meta file can vanish after a power loss even though its contents
     * were fsynced.
     */
    static void fsyncDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    /**
     * Replaces {@code target} with {@code content} atomically: write a temporary file, fsync it,
     * rename it over the target, fsync the directory. A crash leaves either the old or the new file.
     */
    static void writeAtomically(Path target, byte[] content, boolean fsync) throws IOException {
        Path temp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(channel, ByteBuffer.wrap(content), 0);
            if (fsync) channel.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (fsync) fsyncDirectory(target.getParent());
    }

    static void writeFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) at += channel.write(buffer, at);
    }

    /** Reads exactly {@code buffer.remaining()} bytes at {@code position}, or throws at end of file. */
    static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) throw new IOException("unexpected end of file at offset " + at);
            at += n;
        }
    }
}
