#!/bin/bash
# CPU time, syscalls and io_uring requests per MB delivered, A (main) and B (this branch); through bench.
# Each point is one JVM running one long point (4 s warm-up, 6 s measured); perf counts the whole JVM for the 4 s
# from t = 7 s (inside the measured window); the bytes in that window are estimated from the point's MB/s
# (per receiver) x receivers x 4 s. Prints: build,point,task-clock ms,syscalls,io_uring_enter,io_uring requests,MB/s per receiver,receivers.
cd /work/wt-rdmc10
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
j=0
one() { # build label receivers args...
  local b=$1 label=$2 recv=$3; shift 3
  local out=/tmp/rdmc10-sys-$b-$label.txt
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp /tmp/rdmc10-$b.jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 4 --measure 6 --runs 1 --base-port $((24000 + 90 * j)) "$@" > $out 2>&1 &
  local pid=$!
  j=$((j + 1))
  sleep 7
  perf stat -x, -e task-clock,raw_syscalls:sys_enter,syscalls:sys_enter_io_uring_enter,io_uring:io_uring_submit_req -p $pid -- sleep 4 2> /tmp/rdmc10-perf-$b-$label.txt
  wait $pid
  local line=$(grep -E '^1,' $out | tail -1)
  echo "$b,$label,$(grep -v '^#' /tmp/rdmc10-perf-$b-$label.txt | grep . | cut -d, -f1 | tr '\n' ',')$(echo $line | cut -d, -f5),$recv"
}
one A raw-1MiB 1 --sizes 2 --payloads 1048576 --tandem false
one B raw-1MiB 1 --sizes 2 --payloads 1048576 --tandem false
one B tandem-n3-1MiB 2 --sizes 3 --payloads 1048576 --raw false
one A tandem-n3-1MiB 2 --sizes 3 --payloads 1048576 --raw false
one A tandem-n5-1MiB 4 --sizes 5 --payloads 1048576 --raw false
one B tandem-n5-1MiB 4 --sizes 5 --payloads 1048576 --raw false
one B tandem-n3-16MiB 2 --sizes 3 --payloads 16777216 --raw false
one A tandem-n3-16MiB 2 --sizes 3 --payloads 16777216 --raw false
echo "# load at end: $(uptime)"
