#!/usr/bin/env bash
# vsync27: more trials at the point whose A and B trials overlapped in ab.sh (1 KiB, 2 members): A B B A, one JVM each,
# the same command as ab.sh (--warmup 2 --measure 4, default adaptive warm-up); a time guard at 130 s. Run inside `bench`.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync27-base/jmh/target/benchmarks.jar
B=/work/wt-vsync27/jmh/target/benchmarks.jar
out=/work/wt-vsync27/jmh/results/vsync27-2026-11-29
start=$(date +%s)
i=0
for x in A B B A; do
  port=$((21000 + (i % 3) * 300)); i=$((i + 1))
  if (( $(date +%s) - start > 130 )); then echo "== skip $x (time guard)"; continue; fi
  jar=$A; [[ $x == B ]] && jar=$B
  echo "== $x $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 120 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2 --payloads 1024 --systems tandem-ordered \
     --warmup 2 --measure 4 --base-port $port 2>>$out/ab2.err | grep -E '^tandem' | sed "s/^/$x,/"
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
