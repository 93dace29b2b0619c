package io.tandem.jepsen.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cleanup finds a crashed run's leftovers by name and removes them all, twice in a row without
 * complaint. Uses its own prefix, subnet and state directory, so it never touches a real run's.
 */
class CleanupTest {
    @TempDir
    Path state;

    @Test
    void removesEverythingACrashedRunLeftAndIsIdempotent() throws Exception {
        Shell shell = Shell.quiet();
        HostCapabilities caps = HostCapabilities.probe(HostLayout.DEFAULT, shell);
        assumeTrue(caps.canRunCluster(), () -> "needs root, network namespaces and iptables: " + caps.whyNot());
        HostLayout layout = new HostLayout("tjept", "198.18.78", state);
        // The host lock keeps this test apart from runs and from this test in another checkout (same names).
        try (HostLock lock = HostLock.acquire(HostLayout.DEFAULT, java.time.Duration.ofMinutes(15), System.out::println)) {
            removesEverything(layout, shell, caps);
        }
    }

    private void removesEverything(HostLayout layout, Shell shell, HostCapabilities caps) throws Exception {
        new Cleanup(layout, shell).run(); // in case an earlier run of this test died half-way

        // What a run that died (kill -9 of the runner) leaves behind: namespaces with a partition rule, the
        // bridge, a server process inside a namespace and in cgroups, a mounted loop disk.
        NetnsNetwork net = new NetnsNetwork(layout, shell, 2);
        net.up();
        net.partition(Map.of(1, Set.of(2)));
        Cgroups cgroups = new Cgroups(layout);
        cgroups.create(1);
        LoopDisk disk = caps.loopDisks() ? LoopDisk.create(layout, 1, 64L << 20, shell) : null;
        Files.createDirectories(layout.pidDir());
        Process orphan = new ProcessBuilder("sh", "-c", cgroups.joinCommandPrefix(1), "sh", "ip", "netns", "exec", layout.namespace(1), "sleep", "600").start();
        Files.writeString(layout.pidFile(1), orphan.pid() + "\n");
        if (caps.cgroupCpu()) cgroups.limitCpu(1, 10);
        // The orphan enters the namespace only once its shell has exec'd `ip netns exec`: wait for that.
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
        while (!shell.run("ip", "netns", "pids", layout.namespace(1)).out().contains(Long.toString(orphan.pid()))) {
            assertThat(System.nanoTime() - deadline).as("the orphan process enters namespace " + layout.namespace(1)).isNegative();
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
        }

        List<String> problems = new Cleanup(layout, shell).run();

        assertThat(problems).isEmpty();
        assertThat(orphan.isAlive()).isFalse();
        assertThat(new Cleanup(layout, shell).namespaces()).isEmpty();
        assertThat(shell.run("ip", "link", "show", "dev", layout.bridge()).ok()).isFalse();
        assertThat(shell.run("ip", "link", "show", "dev", layout.hostVeth(1)).ok()).isFalse();
        assertThat(layout.cgroupRoot("cpu")).doesNotExist();
        assertThat(layout.cgroupRoot("blkio")).doesNotExist();
        if (disk != null) {
            assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(disk.mountPoint().toString());
            assertThat(shell.run("losetup", "--list", "--noheadings", "--output", "BACK-FILE").out()).doesNotContain(state.toString());
        }
        assertThat(new Cleanup(layout, shell).run()).as("a second cleanup finds nothing to do").isEmpty();
    }
}
