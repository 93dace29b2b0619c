#!/bin/bash
# rdmc15: a short last block rides with the one before it (Session.TAIL_FRACTION). A = main 4c321679 (/tmp/rdmc15/A.jar),
# C = this branch (/tmp/rdmc15/C.jar); 1 MiB payloads (one block with C, two with A: the channel's name prefix),
# n = 2-5, --inflight 16, blocks of 1 MiB, order A C C A, one JVM each; raw one stream (A's jar) at 1 MiB at the start.
# 2 s warm-up, 1.5 s measured. Ports 27000-28999. Through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 100 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 "$@" --base-port $((27000 + 1000 * (j % 2))) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run,\|OpenJDK\|Java HotSpot" | sed "s/^1,/$label,/; s/^# /# $label /"
  j=$((j + 1))
}
run raw /tmp/rdmc15/A.jar --sizes 2 --payloads 1048576 --raw true --tandem false --streams false --fanout false
for x in A C C A; do
  run $x /tmp/rdmc15/$x.jar --sizes 2,3,4,5 --payloads 1048576 --raw false --inflight 16
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
