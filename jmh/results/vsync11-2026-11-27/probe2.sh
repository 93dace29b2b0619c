#!/bin/bash
# Pushes per message of merge13 (afba454): RingBatch.publish (passes, slots, data pushes) and ControlPush.push
# (partial / whole control-range pushes) counted over the whole run, printed at exit; /tmp/vsync11/probe/C/cls
# ahead of merge13's jar. Counts matter here, not the rates (short runs).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
{
for n in 2 3; do
  echo "== C n=$n p=1024 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp /tmp/vsync11/probe/C/cls:/tmp/vsync11/base.jar io.tandem.bench.vsync.MulticastBenchmark --sizes $n --payloads 1024 \
     --systems tandem-ordered --warmup 1 --measure 2 --base-port 23800 2>/dev/null | grep -E '^tandem|probe'
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee /work/wt-vsync11/jmh/results/vsync11-2026-11-27/probe2-bench.txt
