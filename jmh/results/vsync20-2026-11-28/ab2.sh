#!/bin/bash
# vsync20 step 3b, one bench run: B = the channel change (core classes ahead of main 96fd279b's benchmarks.jar), C = B plus
# the touch-ahead in delivery (protocols classes too), J = JGroups SEQUENCER (legacy stack); 1 KiB at 2 and 3 members,
# B C J C B J C B; then a JFR profile of C at 1 KiB, 3 members. Ports 15000-17999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync20/jmh/results/vsync20-2026-11-28
A=/tmp/vsync20-base/benchmarks.jar
B=/tmp/vsync20/B/core:$A
C=/tmp/vsync20/C/core:/tmp/vsync20/C/protocols:$A
i=0
run() { # label sizes payloads
  local label=$1 sizes=$2 payloads=$3
  local port=$((15000 + (i % 3) * 1000)); i=$((i + 1))
  local cp=$A sys=tandem-ordered
  case $label in B) cp=$B ;; C) cp=$C ;; J) sys=jgroups-sequencer ;; esac
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes $sizes --payloads $payloads --systems $sys --jgroups-stack legacy \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab2.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
for l in B C J C B J C B; do run $l 2,3 1024; done
echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -cp $C io.tandem.bench.vsync.MulticastBenchmark --sizes 3 --payloads 1024 --systems tandem-ordered \
    --warmup 2 --measure 4 --base-port 17700 --thread-cpu true --jfr /tmp/vsync20-prof-C 2>>$out/ab2.err | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab2.txt 2>&1
