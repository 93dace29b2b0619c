#!/bin/bash
# vsync19: the small-message matrix, Tandem ordered (T) and JGroups SEQUENCER over TCP (J, the harness' legacy stack
# with the settle step), interleaved T J T J T J in one bench run. T = main 77c51415's benchmarks.jar (the vsync19
# branch has no code change against it). Part 1 first records a JFR profile (-XX:+DebugNonSafepoints) of T at 1 KiB,
# 2 and 3 members. usage: matrix.sh PART SIZES [profile]   ports 15000-16999
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync19/jmh/results/vsync19-2026-11-28
A=/tmp/vsync19-base/jmh/target/benchmarks.jar
part=$1; sizes=$2; prof=$3
i=0
{
echo "== start $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$prof" ]; then
  echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
    --warmup 2 --measure 4 --base-port 17000 --thread-cpu true --jfr /tmp/vsync19-prof 2>>$out/matrix-part$part.err | grep -E '^(tandem|jgroups)|^# '
fi
for s in T J T J T J; do
  port=$((15000 + (i % 2) * 1000)); i=$((i + 1))
  echo "== $s $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ $s = J ]; then
    timeout 80 java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes $sizes --payloads 64,1024 --systems jgroups-sequencer --jgroups-stack legacy \
       --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/matrix-part$part.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
  else
    timeout 80 java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes $sizes --payloads 64,1024 --systems tandem-ordered \
       --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/matrix-part$part.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
  fi
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/matrix-part$part.txt 2>&1
