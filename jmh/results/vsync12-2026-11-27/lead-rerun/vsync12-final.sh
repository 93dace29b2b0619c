#!/bin/bash
# vsync12 final, one bench invocation: the two ceilings (bare TCP loopback, heap copy bandwidth), then A B B A at the
# missed 2-3 member points and JGroups at the same points. A = main daca97b's benchmarks.jar; B = this branch's
# core/protocols/transport-tcp classes (commit 7136ff4) ahead of it. Short points (1 s warm-up, 2 s measured) to stay
# in the bench budget. Ports 23000-23999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync12/base.jar
c=/tmp/vsync12/b-classes/B; B=$c/core:$c/protocols:$c/transport-tcp:$A
out=/work/wt-vsync12/jmh/results/vsync12-2026-11-27
run() { # label cp port system
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $2 io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems $4 \
     --warmup 1 --measure 2 --base-port $3 --thread-cpu true 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
echo "== loopback $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp /tmp/vsync12/loopcls io.tandem.bench.vsync.LoopbackBandwidth --streams 1,2,4,8 --write 262144 --warmup 1 --measure 2 --base-port 23900
echo "== copy $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -Xmx1g -cp /tmp/vsync12/loopcls io.tandem.bench.vsync.CopyBandwidth --threads 1,2 --sizes 1024,8192 --warmup 0.5 --measure 1.5
run A "$A" 23000 tandem-ordered; run B "$B" 23100 tandem-ordered; run B "$B" 23200 tandem-ordered; run A "$A" 23300 tandem-ordered
run J "$A" 23400 jgroups-sequencer
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > /work/runs/s14/vsync12-final.txt 2>&1
