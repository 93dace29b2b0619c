#!/bin/bash
# vsync20 step 3, one bench run: A = main 96fd279b's benchmarks.jar (/tmp/vsync20-base), B = this branch's core classes
# (the channel's send answered through one future, the position result unencoded) ahead of it, J = JGroups SEQUENCER
# (legacy stack, settle step). 1 KiB at 2 and 3 members in three rounds A B J / J B A / B A J; 8 KiB at 2 and 3 members
# B J J B; 64 B at 2 members B J; then B with a 512-slot window at 1 KiB (exploratory) and a JFR profile of B at 1 KiB, 3 members.
# Ports 15000-17999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync20/jmh/results/vsync20-2026-11-28
A=/tmp/vsync20-base/benchmarks.jar
B=/tmp/vsync20/B/core:$A
i=0
run() { # label sizes payloads [extra...]
  local label=$1 sizes=$2 payloads=$3; shift 3
  local port=$((15000 + (i % 3) * 1000)); i=$((i + 1))
  local cp=$A sys=tandem-ordered
  case $label in B*) cp=$B ;; J*) sys=jgroups-sequencer ;; esac
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 java "$@" -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes $sizes --payloads $payloads --systems $sys --jgroups-stack legacy \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/final.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
for l in A B J J B A B A J; do run $l 2,3 1024; done
for l in B J J B; do run $l 2,3 8192; done
for l in B J; do run $l 2 64; done
echo "== Bw512 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 java -cp $B io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered --window 512 \
     --warmup 2 --measure 3 --base-port 17500 --thread-cpu true 2>>$out/final.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -cp $B io.tandem.bench.vsync.MulticastBenchmark --sizes 3 --payloads 1024 --systems tandem-ordered \
    --warmup 2 --measure 4 --base-port 17700 --thread-cpu true --jfr /tmp/vsync20-prof-B 2>>$out/final.err | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/final.txt 2>&1
