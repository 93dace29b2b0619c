package io.tandem.peers.aeron;

import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ClusteredMediaDriver;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpLock;

/**
 * One Aeron Cluster member: a {@link ClusteredMediaDriver} (media driver, archive and consensus module, all in
 * this JVM) plus a {@link ClusteredServiceContainer} running {@link KvClusteredService}. The media driver's
 * directory is a fresh one under /dev/shm, deleted on close; the archive and cluster directories live in the
 * replica's data directory, so the archive's file syncs hit the same disk as the other systems' logs.
 */
final class AeronReplica implements Replica {
    private final KvClusteredService service = new KvClusteredService();
    private final String aeronDirectory;
    private final ClusteredMediaDriver driver;
    private final ClusteredServiceContainer container;

    AeronReplica(ReplicaConfig config) {
        ClusterLayout layout = config.layout();
        int id = config.id();
        String host = layout.host();
        Path data = config.dataDir();
        Supplier<IdleStrategy> idle = AeronSettings.idleStrategy(config.options());
        aeronDirectory = AeronSettings.aeronDirectory("replica" + id);
        int syncLevel = config.fsync() ? 1 : 0;
        ErrorHandler errors = error -> System.err.println("aeron replica " + id + ": " + error);

        MediaDriver.Context driverContext = new MediaDriver.Context()
                .aeronDirectoryName(aeronDirectory)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(idle.get())
                .termBufferSparseFile(true)
                .errorHandler(errors);

        Archive.Context archiveContext = new Archive.Context()
                .aeronDirectoryName(aeronDirectory)
                .archiveDir(data.resolve("archive").toFile())
                .controlChannel(AeronSettings.udp(host, layout.port(id, AeronSettings.ARCHIVE_CONTROL)))
                .localControlChannel("aeron:ipc?term-length=64k")
                .replicationChannel(AeronSettings.ephemeralUdp(host))
                .archiveClientContext(new AeronArchive.Context().controlResponseChannel(AeronSettings.ephemeralUdp(host)))
                .recordingEventsEnabled(false)
                .threadingMode(ArchiveThreadingMode.SHARED)
                .idleStrategySupplier(idle)
                // 1: force each recorded block's data (FileChannel.force(false)) before the recorded position, which
                // is what a follower acknowledges, moves past it; the catalog likewise. 0: page cache only.
                .fileSyncLevel(syncLevel)
                .catalogFileSyncLevel(syncLevel)
                .errorHandler(errors);

        // How the consensus module and the service reach the local archive (over IPC, one thread each).
        AeronArchive.Context localArchive = new AeronArchive.Context()
                .lock(NoOpLock.INSTANCE)
                .controlRequestChannel(archiveContext.localControlChannel())
                .controlRequestStreamId(archiveContext.localControlStreamId())
                .controlResponseChannel(archiveContext.localControlChannel())
                .aeronDirectoryName(aeronDirectory);

        ConsensusModule.Context consensusContext = new ConsensusModule.Context()
                .aeronDirectoryName(aeronDirectory)
                .clusterMemberId(id)
                .clusterMembers(AeronSettings.clusterMembers(layout))
                .clusterDir(data.resolve("cluster").toFile())
                .ingressChannel("aeron:udp")
                .replicationChannel(AeronSettings.ephemeralUdp(host))
                .archiveContext(localArchive.clone())
                .idleStrategySupplier(idle)
                // The recording log and mark file: the same sync level as the archive.
                .fileSyncLevel(syncLevel)
                .leaderHeartbeatTimeoutNs(TimeUnit.MILLISECONDS.toNanos(
                        Long.parseLong(config.option("leader-heartbeat-timeout-ms", "10000"))))
                .errorHandler(errors);

        ClusteredServiceContainer.Context serviceContext = new ClusteredServiceContainer.Context()
                .aeronDirectoryName(aeronDirectory)
                .archiveContext(localArchive.clone())
                .clusterDir(data.resolve("cluster").toFile())
                .clusteredService(service)
                .idleStrategySupplier(idle)
                .errorHandler(errors);

        ClusteredMediaDriver launched = null;
        try {
            launched = ClusteredMediaDriver.launch(driverContext, archiveContext, consensusContext);
            container = ClusteredServiceContainer.launch(serviceContext);
        } catch (RuntimeException e) {
            CloseHelper.quietClose(launched);
            AeronSettings.deleteRecursively(aeronDirectory);
            throw e;
        }
        driver = launched;
    }

    @Override
    public Role role() {
        return service.role();
    }

    KvClusteredService service() {
        return service;
    }

    @Override
    public void close() {
        CloseHelper.closeAll(container, driver);
        AeronSettings.deleteRecursively(aeronDirectory);
    }
}
