package io.tandem.storage.file;

import static io.tandem.storage.stable.StableStorageContract.entry;

import io.tandem.engine.NodeId;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.StorageEvent;
import io.tandem.storage.StorageOptions;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * The process {@link KillNineCrashTest} kills: it opens (and so recovers) a node's storage, then
 * appends entries forever through the engine-facing log, printing {@code ACK <index>} each time
 * an fsync made entries durable and {@code META <index>} when a meta record naming the last
 * appended index is durable. Every 1000 entries it compacts the log, so segments are deleted too.
 */
public final class CrashChild {
    static final String CLUSTER = "crash-test";
    static final NodeId NODE = NodeId.of("n1");
    static final int SEGMENT_BYTES = 32 << 10;
    static final int MAX_IN_FLIGHT = 400;

    private static final Object progress = new Object();
    private static volatile long acknowledged;

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        // FSYNC unless named: NO_FSYNC writes through a mapping of the log's tail, which a kill -9 must keep too.
        FlushPolicy policy = args.length > 1 ? FlushPolicy.valueOf(args[1]) : FlushPolicy.FSYNC;
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        NodeStorage storage = NodeStorage.open(dir, CLUSTER, NODE, StorageOptions.of(policy).withSegmentBytes(SEGMENT_BYTES),
                event -> onEvent(event, out), (snapshot, data) -> CompletableFuture.failedFuture(new IllegalStateException("no installs")));
        acknowledged = storage.log().durableIndex();
        out.println("RECOVERED " + storage.log().firstIndex() + " " + storage.log().lastIndex());
        out.flush();
        var log = storage.log();
        while (true) {
            long next = log.lastIndex() + 1;
            log.append(entry(next, termOf(next)));
            if (next % 200 == 0) storage.meta().put("progress", Long.toString(next).getBytes(StandardCharsets.UTF_8), next);
            if (next % 1000 == 0 && next - 2000 >= log.firstIndex()) log.compactPrefix(next - 2000);
            synchronized (progress) {
                while (next - acknowledged > MAX_IN_FLIGHT) {
                    try {
                        progress.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    static long termOf(long index) {
        return 1 + index / 1000;
    }

    private static void onEvent(StorageEvent event, PrintStream out) {
        switch (event) {
            case StorageEvent.LogSynced synced -> {
                out.println("ACK " + synced.durableIndex());
                out.flush();
                synchronized (progress) {
                    acknowledged = synced.durableIndex();
                    progress.notifyAll();
                }
            }
            case StorageEvent.MetaSaved saved -> {
                out.println("META " + saved.token());
                out.flush();
            }
            case StorageEvent.StorageFailed failed -> {
                out.println("FAILED " + failed.reason());
                out.flush();
            }
            default -> { }
        }
    }

    private CrashChild() {}
}
