#!/bin/bash
# vsync14: the whole matrix, JGroups and Tandem in one bench invocation per part. Ports 24000-24999.
# Part 1: J = JGroups 5.4.11 SEQUENCER over TCP, the legacy stack (vsync7-13's) with the new settle step;
#         T = Tandem ordered (main 8f2e954's core/protocols/transport-tcp: this branch changes none of them).
# Part 2: R = Tandem raw; JGroups at 64 B with two other stacks (JU: UFC below SEQUENCER; JN: no flow control).
# Part 4: JN at 1 KiB and 8 KiB.
# Part 3: JN alone (part 2 was cut off by `timeout 295 bench ...`, whose 295 s included 2.5 minutes waiting for the lock).
# Every system runs this branch's MulticastBenchmark (/tmp/vsync14/jx) ahead of the build's benchmarks.jar.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=/tmp/vsync14/jx:/tmp/vsync14/A/core:/tmp/vsync14/A/protocols:/tmp/vsync14/A/transport-tcp:/tmp/vsync14/base.jar
out=/work/wt-vsync14/jmh/results/vsync14-2026-11-28
part=$1
run() { # label port payloads system extra...
  local label=$1 port=$2 payloads=$3 system=$4; shift 4
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $CP io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads $payloads --systems $system \
     --warmup 1.5 --measure 3 --base-port $port --thread-cpu true "$@" 2>>$out/matrix-part$part.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
if [ "$part" = 4 ]; then # JN at 1 KiB and 8 KiB: is JGroups without flow control faster there too?
  run JN 24000 1024,8192 jgroups-sequencer --jgroups-xml $out/jgroups-noflow.xml
elif [ "$part" = 3 ]; then # part 2's last system again: part 2 was stopped by a timeout that counted its wait for the lock
  run JN 24000 64 jgroups-sequencer --jgroups-xml $out/jgroups-noflow.xml
elif [ "$part" = 1 ]; then
  run J 24000 64,1024,8192 jgroups-sequencer --jgroups-stack legacy
  run T 24000 64,1024,8192 tandem-ordered
else
  run R 24000 64,1024,8192 tandem-raw
  run JU 24000 64 jgroups-sequencer --jgroups-xml $out/jgroups-ufc-below.xml
  run JN 24000 64 jgroups-sequencer --jgroups-xml $out/jgroups-noflow.xml
fi
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/matrix-part$part.txt 2>&1
