#!/usr/bin/env bash
# vsync26: the new default warm-up (adaptive, up to 20 s) on one point, 8 KiB at 2 members, JGroups then Tandem, one JVM
# each from the branch's final jar; each JVM killed after 38 s (the rest of the 12-minute bench budget).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
B=/work/wt-vsync26/jmh/target/benchmarks.jar
out=/work/wt-vsync26/jmh/results/vsync26-2026-11-29
for sys in jgroups-sequencer tandem-ordered; do
  echo "== $sys $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 38 java -cp $B io.tandem.bench.vsync.MulticastBenchmark --sizes 2 --payloads 8192 --systems $sys \
     --warmup 2 --measure 4 --base-port 24500 2>>$out/default-check.err | grep -E '^(tandem|jgroups)'
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
