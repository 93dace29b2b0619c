#!/bin/bash
# rdmc13: C (each inbox event its own batch, the timers and the engine's pass one more; /tmp/rdmc13/C.jar) against
# A (/tmp/rdmc13/A.jar, as in bench-ab.sh), after B (one batch per loop turn) measured 0.87-0.97x A at 1 MiB.
# Raw one stream (C's jar) at 64 KiB and 1 MiB; then 1 MiB n = 2-5 (--inflight 16) C A A C; 64 KiB n = 2, 3
# (--inflight 64) C A. Blocks of 1 MiB; 2 s warm-up, 1.5 s measured. Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 150 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 "$@" --base-port $((24000 + 100 * (j % 9))) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run,\|OpenJDK\|Java HotSpot" | sed "s/^1,/$label,/; s/^# /# $label /"
  j=$((j + 1))
}
run raw /tmp/rdmc13/C.jar --sizes 2 --payloads 65536,1048576 --raw true --tandem false
for x in C A A C; do run $x-1m /tmp/rdmc13/$x.jar --sizes 2,3,4,5 --payloads 1048576 --raw false --inflight 16; done
for x in C A; do run $x-64k /tmp/rdmc13/$x.jar --sizes 2,3 --payloads 65536 --raw false --inflight 64; done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
