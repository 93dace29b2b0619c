#!/bin/bash
# vsync21 step 4 (one bench run, the last of the budget): A = main's benchmarks.jar; D = only the PeerLink change
# (shared encoded region frames within DirectSend.MAX_FRAME_BYTES written by the pushing loop; TcpTransport as on
# main, so a lone target keeps its heap frame). 1 KiB at 3 members only: A D D A A D. Ports 27000-29999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync21/jmh/results/vsync21-2026-11-28
A=/tmp/vsync21-base/benchmarks.jar
i=0
run() { # label
  local label=$1
  local port=$((27000 + (i % 3) * 1000)); i=$((i + 1))
  local cp=$A
  case $label in D) cp=/tmp/vsync21/D/tcp:$A ;; esac
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 40 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 3 --payloads 1024 --systems tandem-ordered \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab-d.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
for l in A D D A A D; do run $l; done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab-d.txt 2>&1
