#!/usr/bin/env bash
# tcp20: the transport's 8 KiB streaming points (no protocol), A = main's benchmarks.jar, B = this branch's, A B B A.
# Ports 19000-19999.
set -u
out="$1"
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
A=/tmp/tcp20-base/jmh/target/benchmarks.jar
B=/work/wt-tcp20/jmh/target/benchmarks.jar
i=0
raw() { # label jar
  echo "== $1 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 $J -Xmx4g -cp $2 io.tandem.bench.vsync.LargeMessageBenchmark --sizes 2,3 --payloads 8192 --block 262144 \
     --tandem false --first-warmup 3 --warmup 0.8 --measure 1.5 --base-port $((19000 + (i % 2) * 400)) 2>>$out/stream.err | grep -E "^1,|^# cpu"
  i=$((i + 1))
}
raw A $A; raw B $B; raw B $B; raw A $A
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
