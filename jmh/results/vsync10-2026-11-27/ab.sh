#!/bin/bash
# vsync10 A/B at the losing points, interleaved A B B A in one bench invocation.
# A = main (792d96a) as /tmp/vsync10/base.jar; B = this branch's compiled classes ahead of that jar
# (snapshotted to /tmp/vsync10/b-classes/<label> before the run). $1 = B's label. Ports 23100-23499.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync10/base.jar
L=$1; C=/tmp/vsync10/b-classes/$L
B=$C/core:$C/transport-tcp:$C/protocols:$A
out=/work/wt-vsync10/jmh/results/vsync10-2026-11-27
run() { # label cp port
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $2 io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems tandem-ordered \
     --warmup 2 --measure 4 --base-port $3 --thread-cpu true 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
run A $A 23100; run B $B 23200; run B $B 23300; run A $A 23400
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee $out/ab-$L.txt
