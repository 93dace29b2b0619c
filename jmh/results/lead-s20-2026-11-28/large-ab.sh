#!/bin/bash
# Lead, session 20: issue 23's 64 KiB point A/B, main 96fd279b (A, /tmp/lead20-base) against the session-20 merge (B),
# interleaved A B B A A B, one JVM per sample (raw one stream, raw fan-out to n - 1, group n = 2-5; the same options as
# large-matrix.sh); then the merge alone at 1, 4 and 16 MiB (one sample each). Ports 21000-22999. Through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
j=0
for s in A:65536:64 B:65536:64 B:65536:64 A:65536:64 A:65536:64 B:65536:64 B:1048576:16 B:4194304:4 B:16777216:4; do
  IFS=: read -r tree p inflight <<<"$s"
  case $tree in A) jar=/tmp/lead20-base/jmh/target/benchmarks.jar ;; B) jar=/work/wt-merge20/jmh/target/benchmarks.jar ;; esac
  echo "# sample $((j + 1)) build $tree payload $p"
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp $jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 --sizes 2,3,4,5 --payloads $p --inflight $inflight --streams false --kinds true \
      --base-port $((21000 + 1000 * (j % 2))) 2>&1 | grep -v "INFO\|WARN\|^\s*at \|OpenJDK\|Java HotSpot"
  j=$((j + 1))
done
echo "# load at end: $(uptime)"
