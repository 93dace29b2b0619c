#!/bin/bash
# vsync14: JGroups SEQUENCER stacks at 64 B and 1 KiB, 2-3 members, with the SEQUENCER settle step before the load:
# legacy (vsync7-13's stack) vs documented (tcp.xml settings, SEQUENCER above UFC/MFC as in sequencer.xml).
# The harness copy in $CP prints SEQUENCER/MFC/UFC state every 0.5 s to stderr (diagnostic only). Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=/tmp/vsync14/dbg/cls:/tmp/vsync14/base.jar
out=/work/wt-vsync14/jmh/results/vsync14-2026-11-28
{
for st in legacy documented; do
  echo "== $st $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $CP io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 64,1024 --systems jgroups-sequencer \
     --warmup 1.5 --measure 3 --base-port 24000 --thread-cpu true --jgroups-stack $st 2>$out/jgroups-stacks-$st.err | grep -E '^(jgroups)|^# [tj].*cores'
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/jgroups-stacks.txt 2>&1
