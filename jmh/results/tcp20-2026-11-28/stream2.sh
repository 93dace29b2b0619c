#!/usr/bin/env bash
# tcp20: the 8 KiB streaming points once more after the frame-size limit of the direct path (A = main, B = this branch), A B.
set -u
out="$1"
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
i=0
raw() { # label jar
  echo "== $1 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 $J -Xmx4g -cp $2 io.tandem.bench.vsync.LargeMessageBenchmark --sizes 2,3 --payloads 8192 --block 262144 \
     --tandem false --first-warmup 3 --warmup 0.8 --measure 1.5 --base-port $((19000 + (i % 2) * 400)) 2>>$out/stream2.err | grep -E "^1,|^# cpu"
  i=$((i + 1))
}
raw A /tmp/tcp20-base/jmh/target/benchmarks.jar; raw B /work/wt-tcp20/jmh/target/benchmarks.jar
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
