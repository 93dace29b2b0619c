package io.tandem.bench.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CgroupV1Test {
    @TempDir
    Path tmp;

    @Test
    void groupPathsAreNormalizedAndConfinedToTheHierarchy() {
        assertThat(CgroupV1.normalizeGroup("/tandem-bench/cpu-n2/")).isEqualTo("tandem-bench/cpu-n2");
        assertThat(CgroupV1.normalizeGroup("/")).isEmpty();
        assertThat(CgroupV1.normalizeGroup("")).isEmpty();
        for (String bad : List.of("../etc", "a/../b", "a//b", "a/.hidden", "a b", "a/b;c", "x/\u00e9")) {
            assertThatThrownBy(() -> CgroupV1.normalizeGroup(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void directoriesAndFilesOfAGroup() {
        CgroupV1 g = CgroupV1.of(Path.of("/sys/fs/cgroup"), "cpu", "tandem-bench").child("cpu-n3");
        assertThat(g.directory()).isEqualTo(Path.of("/sys/fs/cgroup/cpu/tandem-bench/cpu-n3"));
        assertThat(g.file("cpu.cfs_quota_us")).isEqualTo(Path.of("/sys/fs/cgroup/cpu/tandem-bench/cpu-n3/cpu.cfs_quota_us"));
        assertThat(g.root().directory()).isEqualTo(Path.of("/sys/fs/cgroup/cpu"));
        assertThat(g.root().isRoot()).isTrue();
        assertThat(g.root().child("x").group()).isEqualTo("x");
        assertThatThrownBy(() -> g.file("../tasks")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> g.file("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CgroupV1.of(Path.of("/sys/fs/cgroup"), "../cpu", "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesProcCgroupWithCombinedNamedAndUnifiedHierarchies() {
        Map<String, String> groups = CgroupV1.parseProcCgroup("""
                12:cpu,cpuacct:/tandem-bench/cpu-n2
                7:blkio:/
                4:memory:/process_api/101a87
                9:name=systemd:/
                0::/init.scope
                """);
        assertThat(groups).containsEntry("cpu", "tandem-bench/cpu-n2").containsEntry("cpuacct", "tandem-bench/cpu-n2")
                .containsEntry("blkio", "").containsEntry("memory", "process_api/101a87").containsEntry("name=systemd", "")
                .containsEntry("", "init.scope");
        assertThatThrownBy(() -> CgroupV1.parseProcCgroup("garbage")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pidListsAndDeviceNumbers() {
        assertThat(CgroupV1.parsePidList("12\n345\n\n")).containsExactly(12L, 345L);
        assertThat(CgroupV1.parsePidList("")).isEmpty();
        CgroupV1.DeviceNumber d = CgroupV1.DeviceNumber.parse("7:12\n");
        assertThat(d).isEqualTo(new CgroupV1.DeviceNumber(7, 12));
        assertThat(d).hasToString("7:12");
        assertThat(CgroupV1.throttleLine(d, 524_288)).isEqualTo("7:12 524288");
        for (String bad : List.of("7", ":1", "7:", "a:b", "-1:2")) {
            assertThatThrownBy(() -> CgroupV1.DeviceNumber.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> CgroupV1.throttleLine(d, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cfsQuotaFollowsTheThesisSetting() {
        assertThat(CgroupV1.cfsQuotaMicros(5, 1_000_000)).isEqualTo(50_000);
        assertThat(CgroupV1.cfsQuotaMicros(150, 100_000)).isEqualTo(150_000);
        assertThatThrownBy(() -> CgroupV1.cfsQuotaMicros(0.5, 100_000)).hasMessageContaining("1000 us minimum");
        assertThatThrownBy(() -> CgroupV1.cfsQuotaMicros(5, 2_000_000)).hasMessageContaining("period");
        assertThatThrownBy(() -> CgroupV1.cfsQuotaMicros(0, 1_000_000)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A directory tree standing in for a cgroup hierarchy and for /proc: placing a process writes its pid where cgroupfs expects it. */
    @Test
    void placingAProcessMovesItAndClosingMovesItBack() throws IOException {
        Path hierarchy = tmp.resolve("cgroup/cpu");
        Path original = Files.createDirectories(hierarchy.resolve("system.slice"));
        Files.writeString(original.resolve("cgroup.procs"), "");
        Path proc = Files.createDirectories(tmp.resolve("proc/4242"));
        Files.writeString(proc.resolve("cgroup"), "3:cpu,cpuacct:/system.slice\n2:blkio:/\n");

        CgroupV1 group = CgroupV1.of(tmp.resolve("cgroup"), "cpu", "tandem-bench/cpu-n2").create();
        Files.writeString(group.file("cgroup.procs"), ""); // cgroupfs creates the control files itself
        Files.writeString(group.file("cpu.cfs_quota_us"), "-1");
        group.write("cpu.cfs_quota_us", "50000");
        assertThat(group.read("cpu.cfs_quota_us")).isEqualTo("50000");

        try (CgroupV1.Placement placed = group.place(4242, tmp.resolve("proc"))) {
            assertThat(placed.previous().group()).isEqualTo("system.slice");
            assertThat(group.processes()).containsExactly(4242L);
        }
        assertThat(Files.readString(original.resolve("cgroup.procs"))).isEqualTo("4242");
    }

    @Test
    void aProcessOutsideTheControllerCannotBePlaced() throws IOException {
        Path proc = Files.createDirectories(tmp.resolve("proc/7"));
        Files.writeString(proc.resolve("cgroup"), "0::/\n");
        CgroupV1 group = CgroupV1.of(tmp, "cpu", "g");
        assertThatThrownBy(() -> group.place(7, tmp.resolve("proc"))).hasMessageContaining("no 'cpu' cgroup v1 hierarchy");
        assertThatThrownBy(() -> group.place(8, tmp.resolve("proc"))).isInstanceOf(UncheckedIOException.class);
    }

    @Test
    void writingAMissingControlFileNamesThePathAndValue() {
        CgroupV1 group = CgroupV1.of(tmp, "blkio", "g").create();
        assertThatThrownBy(() -> group.write("blkio.throttle.write_bps_device", "7:0 1"))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("7:0 1").hasMessageContaining("blkio.throttle.write_bps_device");
    }
}
