#!/bin/bash
# vsync12 A/B/C, one bench invocation: the bare loopback bound first, then A B C C B A at the missed 2-3 member points.
# A = main daca97b's benchmarks.jar (/tmp/vsync12/base.jar); B = this branch's core/protocols/transport-tcp classes
# ahead of it (commit 7136ff4); C = B with TcpTransport.Regions.ENCODED_PUSH_TARGETS = 1 (shared encoded frames at
# 2 members too). Ports 23000-23899 (benchmark), 23900-23999 (LoopbackBandwidth).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync12/base.jar
cp_of() { local c=/tmp/vsync12/b-classes/$1; echo $c/core:$c/protocols:$c/transport-tcp:$A; }
B=$(cp_of B); C=$(cp_of C)
out=/work/wt-vsync12/jmh/results/vsync12-2026-11-27
run() { # label cp port
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $2 io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems tandem-ordered \
     --warmup 2 --measure 4 --base-port $3 --thread-cpu true 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
echo "== loopback $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp /tmp/vsync12/loopcls io.tandem.bench.vsync.LoopbackBandwidth --streams 1,2,3,4,6,12,20 --write 262144 \
   --warmup 1 --measure 2 --base-port 23900
run A "$A" 23000; run B "$B" 23100; run C "$C" 23200; run C "$C" 23300; run B "$B" 23400; run A "$A" 23500
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab.txt 2>&1
