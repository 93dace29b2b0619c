#!/bin/bash
# vsync19 A/B at 1 KiB, 2 and 3 members, interleaved A B B A A B. A = main 77c51415's benchmarks.jar
# (/tmp/vsync19-base, built from `git archive main`); B = this branch's protocols classes (d2d87fce, the held rings)
# ahead of it. Ports 15000-16999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync19/jmh/results/vsync19-2026-11-28
A=/tmp/vsync19-base/jmh/target/benchmarks.jar
B=/tmp/vsync19/B/protocols:$A
i=0
{
for s in A B B A A B; do
  port=$((15000 + (i % 2) * 1000)); i=$((i + 1))
  echo "== $s $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ $s = A ]; then cp=$A; else cp=$B; fi
  timeout 60 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab.txt 2>&1
