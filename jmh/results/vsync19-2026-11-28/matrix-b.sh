#!/bin/bash
# vsync19: one run of the small-message matrix n = 2-5 x {64 B, 1 KiB} of this branch (B: the held rings, protocols
# classes ahead of main 77c51415's benchmarks.jar) and JGroups (J, legacy stack, settle step) in one invocation.
# Ports 15000-16999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync19/jmh/results/vsync19-2026-11-28
A=/tmp/vsync19-base/jmh/target/benchmarks.jar
B=/tmp/vsync19/B/protocols:$A
{
echo "== B $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 80 java -cp $B io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024 --systems tandem-ordered \
   --warmup 2 --measure 3 --base-port 15000 --thread-cpu true 2>>$out/matrix-b.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
echo "== J $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 90 java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024 --systems jgroups-sequencer --jgroups-stack legacy \
   --warmup 2 --measure 3 --base-port 16000 --thread-cpu true 2>>$out/matrix-b.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/matrix-b.txt 2>&1
