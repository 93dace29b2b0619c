#!/bin/bash
# rdmc11: CPU time and syscalls per 64 KiB message at n = 2, A (83fd318) and B (this branch), through bench.
# rdmc10's method (syscalls.sh): one JVM per point (4 s warm-up, 6 s measured), perf stat over the whole JVM for
# the 4 s from t = 7 s; messages in that window estimated from the point's messages/s x 4 s.
# Prints: build,point,task-clock ms,syscalls,MB/s per receiver,messages per s. Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
j=0
one() { # build label args...
  local b=$1 label=$2; shift 2
  local out=/tmp/rdmc11-cpu-$b-$label-$j.txt
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp /tmp/rdmc11-$b.jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 4 --measure 6 --runs 1 --base-port $((24000 + 100 * j)) "$@" > $out 2>&1 &
  local pid=$!
  j=$((j + 1))
  sleep 7
  perf stat -x, -e task-clock,raw_syscalls:sys_enter -p $pid -- sleep 4 2> $out.perf
  wait $pid
  local line=$(grep -E '^1,' $out | tail -1)
  echo "$b,$label,$(grep -v '^#' $out.perf | grep . | cut -d, -f1 | tr '\n' ',')$(echo $line | cut -d, -f5),$(echo $line | awk -F, '{printf "%.0f", $7/$8}')"
}
one B raw-64KiB --sizes 2 --payloads 65536 --tandem false
for x in A B B A; do one $x tandem-n2-64KiB --sizes 2 --payloads 65536 --raw false --inflight 64; done
echo "# load at end: $(uptime)"
