package io.tandem.jepsen.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One run at a time per host: the names in {@link HostLayout} are fixed, and the cleanup at the start of
 * a run removes whatever carries them, so two runs at once would destroy each other. A second run
 * (another checkout's CI, a manual run) waits for the lock instead.
 */
public final class HostLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private HostLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the host lock, waiting up to {@code maxWait} for a run that holds it.
     *
     * @throws IllegalStateException if the lock was not free within {@code maxWait}
     */
    public static HostLock acquire(HostLayout layout, Duration maxWait, Consumer<String> progress) {
        try {
            Files.createDirectories(layout.stateDir());
            FileChannel ch = FileChannel.open(layout.lockFile(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            long deadline = System.nanoTime() + maxWait.toNanos();
            boolean told = false;
            while (true) {
                FileLock l;
                try {
                    l = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    l = null; // held by this JVM (another run in the same process)
                }
                if (l != null) return new HostLock(ch, l);
                if (System.nanoTime() > deadline) {
                    ch.close();
                    throw new IllegalStateException("another Jepsen run holds " + layout.lockFile() + " for longer than " + maxWait);
                }
                if (!told) {
                    progress.accept("waiting for another Jepsen run on this host to finish (lock " + layout.lockFile() + ")");
                    told = true;
                }
                TimeUnit.MILLISECONDS.sleep(500); // polling a lock held by another process; there is nothing to wait on
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot take the host lock " + layout.lockFile(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the host lock", e);
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // closing the channel releases the lock anyway
        }
    }
}
