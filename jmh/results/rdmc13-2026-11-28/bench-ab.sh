#!/bin/bash
# rdmc13: A/B of large-message bandwidth in one invocation (run through /work/tools/bench).
#   A = /tmp/rdmc13/A.jar (main 52b6897 + the flush counter and the benchmark's frame counts, d0ac69c),
#   B = /tmp/rdmc13/B.jar (this branch: a polling engine's loop turn sends in one batch per peer).
# Order: raw one stream (B's jar; the raw stream sends from a plain thread, not a batching loop, so the same code
# runs in both) at 64 KiB, 1 MiB and 16 MiB; then per build in the order given (default A B B A; "reverse": B A A B)
# one JVM per payload with n = 2-5: 64 KiB (--inflight 64), 1 MiB (--inflight 16), 16 MiB (--inflight 4); raw again
# at the end. Blocks of 1 MiB; 2 s warm-up, 1.5 s measured. Stops starting JVMs after 260 s. Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
order="A B B A"
[ "$1" = reverse ] && order="B A A B"
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 260 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 "$@" --base-port $((24000 + 100 * (j % 9))) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run,\|OpenJDK\|Java HotSpot" | sed "s/^1,/$label,/; s/^# /# $label /"
  j=$((j + 1))
}
run raw /tmp/rdmc13/B.jar --sizes 2 --payloads 65536,1048576,16777216 --raw true --tandem false
for x in $order; do
  run $x-64k /tmp/rdmc13/$x.jar --sizes 2,3,4,5 --payloads 65536 --raw false --inflight 64
  run $x-1m /tmp/rdmc13/$x.jar --sizes 2,3,4,5 --payloads 1048576 --raw false --inflight 16
  run $x-16m /tmp/rdmc13/$x.jar --sizes 2,3,4,5 --payloads 16777216 --raw false --inflight 4
done
run raw /tmp/rdmc13/B.jar --sizes 2 --payloads 65536,1048576,16777216 --raw true --tandem false
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
