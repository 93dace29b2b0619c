#!/bin/bash
# vsync10 final table, one round: B (this branch's classes ahead of main's jar) and J (JGroups SEQUENCER over TCP,
# from main's jar), 2-5 members x 64 B, 1 KiB, 8 KiB, ordered. $1 = round, $2 = order (BJ or JB), $3 = B's label.
# Ports: round r uses 23500+(r-1)*160 .. +155.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync10/base.jar
C=/tmp/vsync10/b-classes/$3
B=$C/core:$C/transport-tcp:$C/protocols:$A
out=/work/wt-vsync10/jmh/results/vsync10-2026-11-27
r=$1; b=$((23500 + (r-1)*160))
run() { # label cp system port
  echo "== $1 round $r $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $2 io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024,8192 --systems $3 \
     --warmup 2 --measure 4 --base-port $4 --thread-cpu true 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
if [ "$2" = BJ ]; then run B $B tandem-ordered $b; run J $A jgroups-sequencer $((b+80));
else run J $A jgroups-sequencer $((b+80)); run B $B tandem-ordered $b; fi
echo "== end round $r $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee $out/final-round$r.txt
