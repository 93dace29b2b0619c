#!/bin/bash
# vsync13 A/B, reduced matrix (3 and 5 members, 1 KiB and 8 KiB, ordered), one bench invocation per round.
# A = main 52b6897's core/protocols/transport-tcp classes ahead of main's benchmarks.jar; B = this branch (commit
# 1st: delivered list presized, no ByteBuffer per result) with its jmh classes; C = B with --idle 20,2 (the engine
# loops park after 20 spins and 2 yields instead of 200 and 20); J = JGroups 5.4.11 SEQUENCER over TCP (A's jar).
# Usage: ab.sh ROUND ORDER   e.g. ab.sh 1 "A B C J"   Ports 23000-23999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
J=/tmp/vsync13/base.jar
a=/tmp/vsync13/A; A=$a/core:$a/protocols:$a/transport-tcp:$J
b=/tmp/vsync13/B; B=$b/jmh:$b/core:$b/protocols:$b/transport-tcp:$J
out=/work/wt-vsync13/jmh/results/vsync13-2026-11-28
round=$1; order=$2
run() { # label cp port system extra...
  local label=$1 cp=$2 port=$3 system=$4; shift 4
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 3,5 --payloads 1024,8192 --systems $system \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true "$@" 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
p=23000
for x in $order; do
  case $x in
    A) run A "$A" $p tandem-ordered ;;
    B) run B "$B" $p tandem-ordered ;;
    C) run C "$B" $p tandem-ordered --idle 20,2 ;;
    J) run J "$A" $p jgroups-sequencer ;;
  esac
  p=$((p + 100))
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab-round$round.txt 2>&1
