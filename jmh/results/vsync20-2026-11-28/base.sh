#!/bin/bash
# vsync20 step 1: main 96fd279b (benchmarks.jar built in the vsync20 worktree while it was at main, copied to
# /tmp/vsync20-base) against JGroups SEQUENCER (legacy stack, settle step) at 1 KiB and 8 KiB, 2 and 3 members:
# pass 1 each point T then J, pass 2 each point J then T; then a JFR profile of T at 1 KiB, 2 and 3 members.
# Ports 15000-17999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync20/jmh/results/vsync20-2026-11-28
A=/tmp/vsync20-base/benchmarks.jar
run() { # label port systems
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 100 java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems $3 --jgroups-stack legacy \
     --warmup 2 --measure 3 --base-port $2 --thread-cpu true 2>>$out/base.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
run pass1 15000 tandem-ordered,jgroups-sequencer
run pass2 16000 jgroups-sequencer,tandem-ordered
echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
    --warmup 2 --measure 4 --base-port 17000 --thread-cpu true --jfr /tmp/vsync20-prof-A 2>>$out/base.err | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/base.txt 2>&1
