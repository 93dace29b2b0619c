#!/bin/bash
# rdmc14: the matrix 64 KiB-16 MiB x n = 2-5 on this branch (/tmp/rdmc14/B.jar, commit 0ed56e3) with its raw references in
# the same invocation (run through /work/tools/bench): one JVM per payload, each measuring first the raw one stream
# ("raw", the target's reference), then the raw fan-out to n - 1 receivers ("raw-fanout", n = 3-5, a diagnostic), then
# Tandem n = 2-5; in-flight messages 64 (64 KiB), 32 (256 KiB), 16 (1 MiB), 4 (4 and 16 MiB). Blocks of 1 MiB; 2 s
# warm-up, 1.5 s measured per point. Ports 25000-25899.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
for p in 65536:64 262144:32 1048576:16 4194304:4 16777216:4; do
  if (( $(date +%s) - start > 270 )); then echo "# skipped $p (time)"; continue; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp /tmp/rdmc14/B.jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 --sizes 2,3,4,5 --payloads ${p%:*} --inflight ${p#*:} --raw true --streams false --fanout true \
      --base-port $((25000 + 100 * (j % 9))) 2>&1 | grep -v "INFO\|WARN\|^\s*at \|OpenJDK\|Java HotSpot"
  j=$((j + 1))
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
