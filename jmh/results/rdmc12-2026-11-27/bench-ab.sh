#!/bin/bash
# rdmc12: A/B of large-message bandwidth in one invocation (run through /work/tools/bench).
#   A = /tmp/rdmc12/A.jar (main 7dbed94), B = /tmp/rdmc12/B.jar (this branch: first block unasked, schedules cached).
# Order: raw one stream (64 KiB and 16 MiB chunks; B's jar, the transport is the same code in both), then per build
# in the order given (default A B B A; "reverse": B A A B) one JVM at 64 KiB (n = 2-5, --inflight 64) and one at
# 16 MiB (n = 4, 5, --inflight 4, the default); raw again at the end. Blocks of 1 MiB; 2.5 s warm-up, 2 s measured.
# Stops starting JVMs after 270 s. Ports 27000-27999.
# With a second argument "park": then C (= B with LargeMessageBenchmark's new --idle option, /tmp/rdmc12/C.jar) with
# --idle park (each member's loop parks at once instead of spinning and yielding first), the same two JVMs.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
order="A B B A"
[ "$1" = reverse ] && order="B A A B"
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 270 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2.5 --measure 2 --runs 1 "$@" --base-port $((27000 + 100 * j)) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^#\|^run," | sed "s/^1,/$label,/"
  j=$((j + 1))
}
run raw /tmp/rdmc12/B.jar --sizes 2 --payloads 65536,16777216 --raw true --tandem false
for x in $order; do
  run $x-64k /tmp/rdmc12/$x.jar --sizes 2,3,4,5 --payloads 65536 --raw false --inflight 64
  run $x-16m /tmp/rdmc12/$x.jar --sizes 4,5 --payloads 16777216 --raw false --inflight 4
done
if [ "$2" = park ]; then
  run C-park-64k /tmp/rdmc12/C.jar --sizes 2,3,4,5 --payloads 65536 --raw false --inflight 64 --idle park
  run C-park-16m /tmp/rdmc12/C.jar --sizes 4,5 --payloads 16777216 --raw false --inflight 4 --idle park
fi
run raw /tmp/rdmc12/B.jar --sizes 2 --payloads 65536,16777216 --raw true --tandem false
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
