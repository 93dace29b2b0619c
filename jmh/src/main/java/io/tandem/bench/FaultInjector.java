package io.tandem.bench;

import io.tandem.bench.os.CgroupV1;
import io.tandem.bench.os.Cleanup;
import io.tandem.bench.os.Signals;
import io.tandem.engine.NodeId;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.transport.Endpoint;
import io.tandem.transport.FaultPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Applies a {@link Slowness} to chosen followers and takes it away again. Every step registers its
 * undo with the {@link Cleanup}, so a benchmark that fails or is interrupted still moves processes
 * out of the cgroups, removes the groups, resumes stopped processes and clears fault plans. Public
 * because the peer benchmark ({@code io.tandem.bench.peers}) applies the same faults to other systems.
 */
public final class FaultInjector {
    /** The nodes a fault can be applied to: their pid, client address and data disk device. */
    public record Target(String id, long pid, Endpoint client, CgroupV1.DeviceNumber disk) {}

    private final Path cgroupRoot;
    private final String cgroupParent;
    private final TandemKvClient admin;
    private final Cleanup cleanup;

    /**
     * @param cgroupRoot   where the cgroup v1 hierarchies are mounted ({@code /sys/fs/cgroup})
     * @param cgroupParent the group (in each hierarchy) under which per-node groups are made
     */
    public FaultInjector(Path cgroupRoot, String cgroupParent, TandemKvClient admin, Cleanup cleanup) {
        this.cgroupRoot = cgroupRoot;
        this.cgroupParent = CgroupV1.normalizeGroup(cgroupParent);
        this.admin = admin;
        this.cleanup = cleanup;
    }

    /** The fault as applied; {@link #close()} takes it away (each undo step runs once). */
    public static final class Applied implements AutoCloseable {
        private final List<Cleanup.Action> undo;

        Applied(List<Cleanup.Action> undo) {
            this.undo = undo;
        }

        @Override
        public void close() {
            for (int i = undo.size() - 1; i >= 0; i--) undo.get(i).run();
        }
    }

    /** Applies {@code slowness} to every target; if any step fails, the steps already taken are undone. */
    public Applied apply(Slowness slowness, List<Target> targets) {
        List<Cleanup.Action> undo = new ArrayList<>();
        try {
            for (Target t : targets) applyTo(slowness, t, undo);
        } catch (RuntimeException e) {
            new Applied(undo).close();
            throw e;
        }
        return new Applied(undo);
    }

    private void applyTo(Slowness slowness, Target t, List<Cleanup.Action> undo) {
        switch (slowness) {
            case Slowness.None none -> {
            }
            case Slowness.CpuQuota cpu -> {
                long period = cpu.period().toNanos() / 1000;
                CgroupV1 group = CgroupV1.of(cgroupRoot, "cpu", cgroupParent).child("cpu-" + t.id());
                group.create();
                undo.add(cleanup.register("remove cgroup " + group.directory(), group::delete));
                group.write("cpu.cfs_period_us", Long.toString(period));
                group.write("cpu.cfs_quota_us", Long.toString(CgroupV1.cfsQuotaMicros(cpu.percent(), period)));
                CgroupV1.Placement placed = group.place(t.pid(), Path.of("/proc"));
                undo.add(cleanup.register("move pid " + t.pid() + " out of " + group.directory(), placed::close));
            }
            case Slowness.DiskThrottle disk -> {
                CgroupV1 group = CgroupV1.of(cgroupRoot, "blkio", cgroupParent).child("disk-" + t.id());
                group.create();
                undo.add(cleanup.register("remove cgroup " + group.directory(), group::delete));
                String limit = CgroupV1.throttleLine(t.disk(), disk.bytesPerSecond());
                group.write("blkio.throttle.write_bps_device", limit);
                group.write("blkio.throttle.read_bps_device", limit);
                // Lifting the limits first lets bios still queued in the group go out before it is removed.
                undo.add(cleanup.register("lift the disk throttle of " + t.id(), () -> {
                    group.write("blkio.throttle.write_bps_device", t.disk() + " 0");
                    group.write("blkio.throttle.read_bps_device", t.disk() + " 0");
                }));
                CgroupV1.Placement placed = group.place(t.pid(), Path.of("/proc"));
                undo.add(cleanup.register("move pid " + t.pid() + " out of " + group.directory(), placed::close));
            }
            case Slowness.NetworkDelay net -> {
                FaultPlan plan = FaultPlan.NONE.withSlowNode(NodeId.of(t.id()), net.delay());
                admin.setFaultPlan(t.client(), plan);
                undo.add(cleanup.register("clear the fault plan of " + t.id(), () -> admin.setFaultPlan(t.client(), FaultPlan.NONE)));
            }
            case Slowness.Stopped stopped -> {
                Signals.stop(t.pid());
                undo.add(cleanup.register("resume pid " + t.pid(), () -> Signals.resumeQuietly(t.pid())));
            }
            case Slowness.Pauses pauses -> {
                PauseCycle cycle = new PauseCycle(t.pid(), pauses.stopped(), pauses.period());
                cycle.start();
                undo.add(cleanup.register("end the SIGSTOP cycle of pid " + t.pid(), cycle::stop));
            }
        }
    }

    /** Stops a process for {@code stopped} out of every {@code period} on a thread of its own, until {@link #stop()}. */
    static final class PauseCycle {
        private final long pid;
        private final Duration stopped;
        private final Duration period;
        private final Thread thread;
        private final CountDownLatch ended = new CountDownLatch(1);

        PauseCycle(long pid, Duration stopped, Duration period) {
            this.pid = pid;
            this.stopped = stopped;
            this.period = period;
            this.thread = Thread.ofPlatform().daemon(true).name("pause-cycle-" + pid).unstarted(this::loop);
        }

        void start() {
            thread.start();
        }

        private void loop() {
            long next = System.nanoTime();
            try {
                while (true) {
                    Signals.stop(pid);
                    if (waitUntil(next + stopped.toNanos())) break;
                    Signals.resume(pid);
                    next += period.toNanos();
                    if (waitUntil(next)) break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                if (ended.getCount() > 0) System.err.println("pause cycle of pid " + pid + " ended: " + e.getMessage());
            } finally {
                Signals.resumeQuietly(pid);
            }
        }

        /** Waits until {@code nanoTime}; true if the cycle was ended meanwhile. */
        private boolean waitUntil(long nanoTime) throws InterruptedException {
            long wait = nanoTime - System.nanoTime();
            return wait > 0 ? ended.await(wait, TimeUnit.NANOSECONDS) : ended.getCount() == 0;
        }

        /** Ends the cycle (the process is left running) and waits for the thread to finish. */
        void stop() {
            ended.countDown();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Signals.resumeQuietly(pid);
        }
    }

    /** Removes the per-node groups a killed earlier run may have left under the parent group, in both hierarchies. */
    public static void sweep(Path cgroupRoot, String cgroupParent) {
        for (String controller : new String[] {"cpu", "blkio"}) {
            CgroupV1.of(cgroupRoot, controller, cgroupParent).deleteTree();
        }
    }

    /** Checks that the cgroup v1 controllers the faults need are mounted and writable. */
    public static void checkCgroups(Path cgroupRoot) {
        for (String controller : new String[] {"cpu", "blkio"}) {
            CgroupV1 root = CgroupV1.of(cgroupRoot, controller, "");
            String file = controller.equals("cpu") ? "cpu.cfs_quota_us" : "blkio.throttle.write_bps_device";
            if (!Files.exists(root.file(file))) {
                throw new IllegalStateException("the cgroup v1 '" + controller + "' controller is not mounted at " + root.directory()
                        + " (" + file + " missing); the CPU and disk faults need cgroup v1 and root");
            }
        }
    }
}
