#!/usr/bin/env bash
# Lead, session 27: is JGroups SEQUENCER's 64 B cap (19,530 msg/s per sending member in every table) its legacy stack's?
# 64 B at 2 and 3 members with the benchmark's legacy stack (L) and JGroups' own tcp.xml settings (D, --jgroups-stack
# documented), L D D L, the benchmark's adaptive warm-up. Run inside `bench`.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
jar=/work/wt-merge27/jmh/target/benchmarks.jar
i=0
for s in legacy documented documented legacy; do
  port=$((20000 + (i % 3) * 300)); i=$((i + 1))
  echo "== $s $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 600 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 64 --systems jgroups-sequencer \
     --jgroups-stack $s --warmup 2 --measure 4 --base-port $port 2>/dev/null | grep -E '^jgroups' | sed "s/^/$s,/"
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
