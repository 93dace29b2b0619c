#!/bin/bash
# vsync13: the whole matrix once (2-5 members x 64 B, 1 KiB, 8 KiB, ordered), one bench invocation:
# J = JGroups 5.4.11 SEQUENCER over TCP (main's jar), B = this branch, C = B with --idle 20,2. Ports 23000-23999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
J=/tmp/vsync13/base.jar
b=/tmp/vsync13/B; B=$b/jmh:$b/core:$b/protocols:$b/transport-tcp:$J
out=/work/wt-vsync13/jmh/results/vsync13-2026-11-28
run() { # label cp port system extra...
  local label=$1 cp=$2 port=$3 system=$4; shift 4
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024,8192 --systems $system \
     --warmup 1.5 --measure 3 --base-port $port --thread-cpu true "$@" 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
run J "$J" 23000 jgroups-sequencer
run B "$B" 23000 tandem-ordered
run C "$B" 23000 tandem-ordered --idle 20,2
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/matrix.txt 2>&1
