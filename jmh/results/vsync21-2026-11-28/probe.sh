#!/bin/bash
# vsync21 step 2 (probe, one bench run): main's benchmarks.jar as it is (A) against the same jar with
# -Dtandem.tcp.directMaxFrameBytes=65536 (P: region-write frames up to 64 KiB written by the loop thread itself, as
# DirectSend's small frames are; at 2 members every region push is such a frame). 1 KiB at 2 and 3 members, 8 KiB at 2:
# A P P A. Ports 27000-29999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync21/jmh/results/vsync21-2026-11-28
A=/tmp/vsync21-base/benchmarks.jar
i=0
run() { # label sizes payloads
  local label=$1 sizes=$2 payloads=$3
  local port=$((27000 + (i % 3) * 1000)); i=$((i + 1))
  local opt=-Dx=1
  case $label in P) opt=-Dtandem.tcp.directMaxFrameBytes=65536 ;; esac
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 java $opt -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes $sizes --payloads $payloads --systems tandem-ordered \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/probe.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
for l in A P P A; do run $l 2,3 1024; run $l 2 8192; done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/probe.txt 2>&1
