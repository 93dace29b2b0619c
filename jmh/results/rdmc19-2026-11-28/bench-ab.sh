#!/bin/bash
# rdmc19 A/B: A = main 77c51415 (/tmp/rdmc19/A.jar, built from `git archive` with `package -pl jmh -am`), B = this branch
# (/tmp/rdmc19/B.jar: a send pass's guard rides with its counters, the heartbeat's push recorded). 64 KiB (--inflight 64)
# and 1 MiB (--inflight 16), n = 3 and 5, one JVM per build and payload, order A B B A B A; raw one stream and the raw
# fan-out (n = 3, 5) from B's jar (the transport is main's in both) at the start and end. Blocks of 1 MiB, 2 s warm-up,
# 1.5 s measured, frames by kind counted. Ports 18000-19999. Run through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 270 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 "$@" --base-port $((18000 + 1000 * (j % 2))) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run,\|OpenJDK\|Java HotSpot" | sed "s/^1,/$label,/; s/^# /# $label /"
  j=$((j + 1))
}
refs() {
  run ref /tmp/rdmc19/B.jar --sizes 3,5 --payloads 65536 --raw true --tandem false --streams false --fanout true
  run ref /tmp/rdmc19/B.jar --sizes 3,5 --payloads 1048576 --raw true --tandem false --streams false --fanout true
}
refs
for x in A B B A B A; do
  run $x /tmp/rdmc19/$x.jar --sizes 3,5 --payloads 65536 --raw false --inflight 64 --kinds true
  run $x /tmp/rdmc19/$x.jar --sizes 3,5 --payloads 1048576 --raw false --inflight 16 --kinds true
done
refs
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
