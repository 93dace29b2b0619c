#!/bin/bash
# vsync19b part 1b: 64 B against JGroups SEQUENCER with UFC below it (vsync14's jgroups-ufc-below.xml: the fastest
# JGroups stack with flow control at 64 B; the legacy stack stalls on MFC credits there). main 77c51415 (A.jar),
# n = 2-5, each point T then J. Ports 30000-30999. Then the JFR profile (profile.sh, ports 31000-31999).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync19b/jmh/results/vsync19b-2026-11-28
A=/tmp/vsync19b/A.jar
{
echo "== JU 64 B $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 100 java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64 --systems tandem-ordered,jgroups-sequencer \
   --jgroups-xml /work/wt-vsync19b/jmh/results/vsync14-2026-11-28/jgroups-ufc-below.xml --warmup 2 --measure 3 --base-port 30000 --thread-cpu true 2>>$out/ju64.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ju64.txt 2>&1
/work/wt-vsync19b/jmh/results/vsync19b-2026-11-28/profile.sh A
