#!/bin/bash
# vsync11 A/B at the 2-3 member points, interleaved A B B A, then JGroups once, in one bench invocation.
# A = merge13 (afba454) as /tmp/vsync11/base.jar; B = this branch's compiled classes (core, protocols)
# ahead of that jar (snapshotted to /tmp/vsync11/b-classes/<label>). $1 = B's label. Ports 23100-23599.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync11/base.jar
L=$1; C=/tmp/vsync11/b-classes/$L
B=$C/core:$C/protocols:$A
out=/work/wt-vsync11/jmh/results/vsync11-2026-11-27
run() { # label cp port system
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $2 io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems $4 \
     --warmup 2 --measure 4 --base-port $3 --thread-cpu true 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
run A $A 23100 tandem-ordered; run B $B 23200 tandem-ordered; run B $B 23300 tandem-ordered; run A $A 23400 tandem-ordered
run J $A 23500 jgroups-sequencer
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee $out/ab-$L.txt
