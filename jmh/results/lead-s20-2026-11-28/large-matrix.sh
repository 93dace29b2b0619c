#!/bin/bash
# Lead, session 20: issue 23 at 64 KiB and 256 KiB on the session-20 merge (rdmc19's bench-matrix.sh with the merge's jar): one JVM
# per payload with raw one stream, raw fan-out to n - 1 (n = 3-5) and the group n = 2-5, the JVM's CPU per point; window
# 16, blocks of 1 MiB, in flight 64 / 32 / 16 / 4 / 4; 2 s warm-up, 1.5 s measured. Payloads 64K and 256K, three samples each (session 19 ran 64K-16M:
# see lead-s19). Ports 21000-22999. Through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
jar=/work/wt-merge20/jmh/target/benchmarks.jar
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
for p in 65536:64 262144:32 65536:64 262144:32 65536:64 262144:32; do
  if (( $(date +%s) - start > 420 )); then echo "# skipped $p (time)"; continue; fi
  echo "# sample $((j + 1)) payload ${p%%:*}"
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp $jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 --sizes 2,3,4,5 --payloads ${p%%:*} --inflight ${p##*:} --streams false --kinds true \
      --base-port $((21000 + 1000 * (j % 2))) 2>&1 | grep -v "INFO\|WARN\|^\s*at \|OpenJDK\|Java HotSpot"
  j=$((j + 1))
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
