#!/bin/bash
# vsync10 round 3, cut to the contested points to stay within the bench budget: B and J at 2-3 members x 1 KiB, 8 KiB.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync10/base.jar
C=/tmp/vsync10/b-classes/v1
B=$C/core:$C/transport-tcp:$C/protocols:$A
out=/work/wt-vsync10/jmh/results/vsync10-2026-11-27
run() {
  echo "== $1 round 3 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $2 io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems $3 \
     --warmup 2 --measure 4 --base-port $4 --thread-cpu true 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
run B $B tandem-ordered 23820; run J $A jgroups-sequencer 23900
echo "== end round 3 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee $out/final-round3.txt
