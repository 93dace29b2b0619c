#!/bin/bash
# vsync15: ceilings at 8 KiB, then A/B/JGroups at 1 KiB and 8 KiB with 2 and 3 members, interleaved in one bench run.
# A = main 4c321679's benchmarks.jar (/tmp/vsync15/A.jar); B = this branch's core + protocols classes ahead of it.
# J = JGroups 5.4.11 SEQUENCER over TCP, the harness' legacy stack with the settle step (vsync14);
# JT / JG = JGroups' own tcp.xml with SEQUENCER on top of UFC/MFC (sequencer.xml) / just under GMS (its comment).
# usage: ab.sh PART "SYSTEMS..." [ceilings]   ports 24000-26999
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync15/jmh/results/vsync15-2026-11-28
A=/tmp/vsync15/A.jar
B=/tmp/vsync15/B/core:/tmp/vsync15/B/protocols:/tmp/vsync15/A.jar
part=$1; order=$2; ceil=$3
i=0
run() { # label cp system extra...
  local label=$1 cp=$2 system=$3; shift 3
  local port=$((24000 + (i % 2) * 1000)); i=$((i + 1))
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 100 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems $system \
     --warmup 1.5 --measure 3 --base-port $port --thread-cpu true "$@" 2>>$out/ab-part$part.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
echo "== start $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$ceil" ]; then
  echo "== ceilings $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $A io.tandem.bench.vsync.LoopbackBandwidth --streams 1,2,6 --write 8192 --warmup 0.5 --measure 1.5 --base-port 26000
  java -cp $A io.tandem.bench.vsync.LoopbackBandwidth --streams 1,2 --write 262144 --warmup 0.5 --measure 1.5 --base-port 26100
  timeout 60 java -cp $A io.tandem.bench.vsync.LargeMessageBenchmark --sizes 2,3 --payloads 8192 --block 262144 --tandem false \
     --warmup 1 --measure 2 --base-port 26200 2>>$out/ab-part$part.err | grep -vE '^WARNING'
fi
for s in $order; do
  case $s in
    A) run A $A tandem-ordered ;;
    B) run B $B tandem-ordered ;;
    C) run C $B tandem-ordered --window 128 ;;   # B with a ring of 128 slots (the default sizes it 256 at 1 KiB, 64 at 8 KiB)
    J) run J $A jgroups-sequencer --jgroups-stack legacy ;;
    JT) run JT $A jgroups-sequencer --jgroups-xml $out/jgroups-tcpxml-top.xml ;;
    JG) run JG $A jgroups-sequencer --jgroups-xml $out/jgroups-tcpxml-gms.xml ;;
  esac
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab-part$part.txt 2>&1
