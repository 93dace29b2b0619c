#!/bin/bash
# Lead, session 19: issue 23's matrix on the session-19 merge (rdmc19's bench-matrix.sh with the merge's jar): one JVM
# per payload with raw one stream, raw fan-out to n - 1 (n = 3-5) and the group n = 2-5, the JVM's CPU per point; window
# 16, blocks of 1 MiB, in flight 64 / 32 / 16 / 4 / 4; 2 s warm-up, 1.5 s measured. Payloads 64K 256K 1M 4M 16M, then
# 64K 256K 1M twice more (three samples up to 1 MiB, one at 4-16 MiB). Ports 21000-22999. Through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
jar=/work/wt-merge19/jmh/target/benchmarks.jar
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
for p in 65536:64 262144:32 1048576:16 4194304:4 16777216:4 65536:64 262144:32 1048576:16 65536:64 262144:32 1048576:16; do
  if (( $(date +%s) - start > 420 )); then echo "# skipped $p (time)"; continue; fi
  echo "# sample $((j + 1)) payload ${p%%:*}"
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp $jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 --sizes 2,3,4,5 --payloads ${p%%:*} --inflight ${p##*:} --streams false --kinds true \
      --base-port $((21000 + 1000 * (j % 2))) 2>&1 | grep -v "INFO\|WARN\|^\s*at \|OpenJDK\|Java HotSpot"
  j=$((j + 1))
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
