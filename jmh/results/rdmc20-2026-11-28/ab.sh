#!/bin/bash
# rdmc20, session 20: A/B of main (A, 96fd279b, jar built from `git archive main`) against this branch (B) with the
# lead's large-matrix.sh points (one JVM per sample: raw one stream, raw fan-out n = 3-5, the group n = 2-5, --kinds),
# reduced to one payload per invocation: ab.sh PAYLOAD INFLIGHT ORDER (e.g. 65536 64 ABBAAB). Window 16, blocks of
# 1 MiB, 2 s warm-up, 1.5 s measured. Ports 12000-14999. Through /work/tools/bench; stops starting JVMs after 270 s.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/rdmc20-base/jmh/target/benchmarks.jar
B=/work/wt-rdmc20/jmh/target/benchmarks.jar
payload=$1; inflight=$2; order=$3
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
for (( i = 0; i < ${#order}; i++ )); do
  build=${order:$i:1}
  if (( $(date +%s) - start > 270 )); then echo "# skipped sample $((i + 1)) build $build (time)"; continue; fi
  jar=$A; [ "$build" = B ] && jar=$B
  echo "# sample $((i + 1)) build $build payload $payload"
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp $jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 --sizes 2,3,4,5 --payloads $payload --inflight $inflight --streams false --kinds true \
      --base-port $((12000 + 1000 * (j % 3))) 2>&1 | grep -v "INFO\|WARN\|^\s*at \|OpenJDK\|Java HotSpot"
  j=$((j + 1))
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
