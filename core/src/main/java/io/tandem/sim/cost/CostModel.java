package io.tandem.sim.cost;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Time for the simulator (DESIGN §8.5): every node gets a CPU ({@link NodeCpu} on a {@link CpuHost}),
 * a disk ({@link DiskModel}) and links ({@link NetworkModel}), and every event it handles costs the
 * service time the calibrated {@link CostTable} gives. The simulation asks it what an event costs and
 * queues the event's work on the node's stages; slowness is a change of these parameters at run time
 * ({@link Slowdown}). The model draws its samples from its own random stream, so the simulation's
 * other streams are those of a run without it.
 *
 * @see io.tandem.sim.SimBench
 */
public final class CostModel {
    /** The client machine's name in the model (the load generator). */
    public static final String CLIENT = "client";

    /**
     * Where the nodes run.
     *
     * @param coresPerNode cores of each node's own machine (ignored when {@code sharedCores > 0})
     * @param sharedCores  0: every node on a machine of its own (the papers' setup); otherwise all nodes
     *                     and, with {@code clientShares}, the load generator share one machine of that many cores
     * @param clientCores  cores of the load generator's machine when it has its own
     * @param clientShares the load generator runs on the shared machine (this development VM's setup)
     * @param ioThreads    transport I/O threads per node
     */
    public record Resources(int coresPerNode, int sharedCores, int clientCores, boolean clientShares, int ioThreads, boolean sharedDisk) {
        public Resources {
            if (coresPerNode < 1 || sharedCores < 0 || clientCores < 1 || ioThreads < 1) throw new IllegalArgumentException("cores and threads must be >= 1");
            if (clientShares && sharedCores == 0) throw new IllegalArgumentException("the client can share a machine only when the nodes share one");
            if (sharedDisk && sharedCores == 0) throw new IllegalArgumentException("the nodes can share a disk only when they share a machine");
        }

        /** One machine of {@code cores} cores and its own disk per node, and a client machine with 16 cores: the papers' layout. */
        public static Resources dedicated(int cores) {
            return new Resources(cores, 0, 16, false, 1, false);
        }

        /**
         * All nodes and the load generator on one machine of {@code cores} cores with one disk (like this VM: the replica
         * JVMs' logs on one filesystem, see {@link DiskDevice}).
         */
        public static Resources shared(int cores) {
            return new Resources(1, cores, 1, true, 1, true);
        }

        /** The same placement with a disk of its own for every node (the model before the shared device; for comparison). */
        public Resources withSeparateDisks() {
            return new Resources(coresPerNode, sharedCores, clientCores, clientShares, ioThreads, false);
        }

        public String format() {
            return sharedCores > 0 ? "shared:" + sharedCores + (clientShares ? "+client" : "") + (sharedDisk ? "+disk" : "") : "dedicated:" + coresPerNode;
        }
    }

    private final CostTable table;
    private final Resources resources;
    private final SplittableRandom random;
    private Scheduler scheduler;
    private NetworkModel network;
    private final Map<String, NodeCpu> cpus = new LinkedHashMap<>();
    private final Map<String, DiskModel> disks = new LinkedHashMap<>();
    private final Map<String, CpuHost> hosts = new LinkedHashMap<>();
    private DiskDevice device;
    private final FrameCoalescing frames = new FrameCoalescing();
    private final CostProfile profile = new CostProfile();

    public CostModel(CostTable table, Resources resources, long seed) {
        this.table = table;
        this.resources = resources;
        this.random = new SplittableRandom(seed ^ 0x7A11D3C0575EEDL);
    }

    /** Binds the model to a simulation's clock and creates the machines of {@code nodes} and the client. */
    public void attach(Scheduler scheduler, List<String> nodes) {
        if (this.scheduler != null) throw new IllegalStateException("a cost model serves one simulation");
        this.scheduler = scheduler;
        SplittableRandom networkRandom = random.split();
        this.network = new NetworkModel(table.network(), table.networkBytesPerSecond(), networkRandom);
        CpuHost shared = resources.sharedCores() > 0 ? host("shared", resources.sharedCores()) : null;
        for (String n : nodes) {
            CpuHost h = shared != null ? shared : host(n, resources.coresPerNode());
            cpus.put(n, new NodeCpu(n, h, resources.ioThreads(), 1, 1));
            for (Stage s : Stage.values()) cpus.get(n).setWakeupCost(s, table.wakeupCost(s));
            disks.put(n, new DiskModel(table.deviceSync(), table.diskBytesPerSecond(), random.split()));
            disks.get(n).setRecordNanos(table.diskRecordNanos());
        }
        CpuHost clientHost = resources.clientShares() ? shared : host(CLIENT, resources.clientCores());
        // The load generator: its I/O threads send requests and read replies (one per core it may use).
        cpus.put(CLIENT, new NodeCpu(CLIENT, clientHost, resources.clientShares() ? 2 : resources.clientCores(), 1, 1));
        cpus.get(CLIENT).setWakeupCost(table.clientWakeupCost());
        // The parts added later draw from streams split off after all the others, so that a table without them gives
        // exactly the runs it gave before they existed.
        if (resources.sharedDisk()) {
            device = new DiskDevice("shared", table.deviceSync(), table.diskBytesPerSecond(), random.split(), scheduler);
            for (DiskModel d : disks.values()) d.attachDevice(device, scheduler);
        }
        if (table.stallsPerSecond() > 0) {
            this.network = new NetworkModel(table.networkBase(), table.networkBytesPerSecond(), networkRandom);
            network.setStalls(table.stallsPerSecond(), table.stallDuration(), random.split());
        }
        network.setSharedWakeups(table.sharedWakeups());
        if (table.windowBytes() > 0) network.setWindow(table.windowBytes(), table.outboxLimits(), random.split());
        Distribution handoff = table.handoffLatency();
        if (handoff != null) {
            // One stream per node, split in the nodes' order: deterministic, and a table without the key splits nothing.
            for (String n : nodes) {
                SplittableRandom r = random.split();
                for (Stage s : HANDOFF_STAGES) cpus.get(n).setHandoffLatency(s, handoff, r);
            }
        }
    }

    /**
     * The stages whose jobs a hand-off to a parked thread precedes, with no measured latency holding its wake-up: the protocol
     * loop (the I/O thread hands it a message or a request) and the execution thread (the loop hands it committed
     * entries). Not the I/O threads (the loopback latency holds their wake-ups) nor the storage thread (the fsync does).
     */
    static final java.util.Set<Stage> HANDOFF_STAGES = java.util.EnumSet.of(Stage.LOOP, Stage.EXEC);

    /** The disk device the nodes share (with {@link Resources#sharedDisk()}), or null. */
    public DiskDevice device() {
        return device;
    }

    private CpuHost host(String name, int cores) {
        CpuHost h = new CpuHost(name, cores, scheduler);
        hosts.put(name, h);
        return h;
    }

    /** The open flushes and reads of every link ({@link FrameCoalescing}; used only when the table has per-syscall costs). */
    public FrameCoalescing frames() {
        return frames;
    }

    /** Where each machine's modelled CPU went (a diagnostic; see {@link CostProfile}). */
    public CostProfile profile() {
        return profile;
    }

    public CostTable table() {
        return table;
    }

    public Resources resources() {
        return resources;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public NetworkModel network() {
        return network;
    }

    public NodeCpu cpu(String node) {
        NodeCpu c = cpus.get(node);
        if (c == null) throw new IllegalArgumentException("no node " + node + " in the cost model");
        return c;
    }

    public DiskModel disk(String node) {
        DiskModel d = disks.get(node);
        if (d == null) throw new IllegalArgumentException("no node " + node + " in the cost model");
        return d;
    }

    public Map<String, CpuHost> hosts() {
        return java.util.Collections.unmodifiableMap(hosts);
    }
}
