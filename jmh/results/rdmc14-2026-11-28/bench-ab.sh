#!/bin/bash
# rdmc14: A/B of large-message bandwidth in one invocation (run through /work/tools/bench).
#   A = /tmp/rdmc14/A.jar (main 8f2e954), B = /tmp/rdmc14/B.jar (engine: deferred data-counter pushes, seq after send),
#   C = /tmp/rdmc14/C.jar (B + Netty reads of up to 1 MiB per receive).
# Order: raw one stream with A's and C's jar (C changes the transport's read size, so the raw stream differs) at
# 64 KiB and 1 MiB; then A B C C B A with one JVM per build at 64 KiB n = 2-5 (--inflight 64); then A C C A at 1 MiB
# n = 2-3 (--inflight 16); raw again at the end. Blocks of 1 MiB; 2 s warm-up, 1.5 s measured. Ports 25000-25899.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 270 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 "$@" --base-port $((25000 + 100 * (j % 9))) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run,\|OpenJDK\|Java HotSpot" | sed "s/^1,/$label,/; s/^# /# $label /"
  j=$((j + 1))
}
raws() {
  run rawA /tmp/rdmc14/A.jar --sizes 2 --payloads 65536,1048576 --raw true --tandem false
  run rawC /tmp/rdmc14/C.jar --sizes 2 --payloads 65536,1048576 --raw true --tandem false --streams false --fanout false
}
raws
for x in A B C C B A; do
  run $x-64k /tmp/rdmc14/$x.jar --sizes 2,3,4,5 --payloads 65536 --raw false --inflight 64
done
for x in A C C A; do
  run $x-1m /tmp/rdmc14/$x.jar --sizes 2,3 --payloads 1048576 --raw false --inflight 16
done
raws
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
