package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
import io.tandem.jepsen.host.LoopDisk;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * A cgroup-v1 blkio throttle of the targets' loop-device disks ({@code :start-slow-disk} /
 * {@code :stop-slow-disk}): every fsync of the node's log waits for the throttled device.
 */
final class SlowDiskPackage implements FaultPackage {
    private final NetnsCluster cluster;
    private final List<Keyword> targets;
    private final long bytesPerSecond;
    private final long iops;
    private boolean active;

    SlowDiskPackage(NetnsCluster cluster, List<Keyword> targets, long bytesPerSecond, long iops) {
        this.cluster = cluster;
        this.targets = targets;
        this.bytesPerSecond = bytesPerSecond;
        this.iops = iops;
    }

    @Override
    public FaultKind kind() {
        return FaultKind.SLOW_DISK;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("start-slow-disk");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("stop-slow-disk");
    }

    @Override
    public boolean active() {
        return active;
    }

    @Override
    public Object startValue(RandomGenerator random) {
        return targets.get(random.nextInt(targets.size()));
    }

    @Override
    public Object start(Object value, RandomGenerator random) {
        active = true;
        Map<String, Object> out = new TreeMap<>();
        for (ServerNode n : Targets.select((Keyword) value, cluster, random)) {
            LoopDisk disk = cluster.disk(n.index()).orElseThrow(() -> new IllegalStateException(n.name() + " has no disk of its own"));
            cluster.cgroups().throttleDisk(n.index(), disk.majorMinor(), bytesPerSecond, iops);
            Map<Object, Object> what = new LinkedHashMap<>();
            what.put(Keyword.of("device"), disk.device());
            what.put(Keyword.of("bytes-per-second"), bytesPerSecond);
            what.put(Keyword.of("iops"), iops);
            out.put(n.name(), what);
        }
        return out;
    }

    @Override
    public Object stop() {
        for (ServerNode n : cluster.nodes()) {
            cluster.disk(n.index()).ifPresent(d -> cluster.cgroups().unthrottleDisk(n.index(), d.majorMinor()));
        }
        active = false;
        return Keyword.of("disk-restored");
    }
}
