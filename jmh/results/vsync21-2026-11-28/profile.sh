#!/bin/bash
# vsync21 step 1: JFR profile of main c7c59051 (benchmarks.jar built in the vsync21 worktree at main, copied to
# /tmp/vsync21-base) at 1 KiB, 3 members and 8 KiB, 2 members, per-thread CPU. Ports 27000-29999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync21/jmh/results/vsync21-2026-11-28
A=${A:-/tmp/vsync21-base/benchmarks.jar}
tag=${TAG:-A}
{
for pt in "3 1024" "2 8192"; do set -- $pt
echo "== profile $tag n=$1 p=$2 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes $1 --payloads $2 --systems tandem-ordered \
    --warmup 2 --measure 4 --base-port 27000 --thread-cpu true --jfr /tmp/vsync21-prof-$tag-$1-$2 2>>$out/profile-$tag.err | grep -E '^(tandem|jgroups)|^# '
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/profile-$tag.txt 2>&1
