#!/bin/bash
# Slots per send pass (RingBatch.publish with a counter, printed at exit; /tmp/vsync11/probe/{A,B}/cls ahead of
# merge13's jar; A = merge13's RingBatch, B = A + v1's ShardState). Short runs: the counts matter, not the rates.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
P=/tmp/vsync11/probe
{
for v in A B; do for n in 2 3; do for p in 1024 8192; do
  echo "== $v n=$n p=$p $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $P/$v/cls:/tmp/vsync11/base.jar io.tandem.bench.vsync.MulticastBenchmark --sizes $n --payloads $p --systems tandem-ordered \
     --warmup 1 --measure 2 --base-port 23700 2>/dev/null | grep -E '^tandem|probe'
done; done; done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee /work/wt-vsync11/jmh/results/vsync11-2026-11-27/probe-bench.txt
