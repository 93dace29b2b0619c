package io.tandem.storage;

/**
 * How a batch of writes is made durable. Any benchmark or report must name the policy it ran with.
 */
public enum FlushPolicy {
    /**
     * One {@code fsync} ({@link java.nio.channels.FileChannel#force}) per batch before the batch is
     * reported durable: survives process crashes and power loss. The default.
     */
    FSYNC,
    /**
     * Writes reach the operating system's page cache and are reported durable without an
     * {@code fsync}: survives a process crash ({@code kill -9}) but not a kernel crash or power
     * loss. For benchmarks and throw-away clusters only.
     */
    NO_FSYNC;

    public boolean fsync() {
        return this == FSYNC;
    }
}
