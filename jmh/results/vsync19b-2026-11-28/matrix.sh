#!/bin/bash
# vsync19b part 1: main 77c51415 (A.jar) small-message matrix, n = 2-5 x {64 B, 1 KiB}, Tandem ordered vs JGroups
# SEQUENCER (legacy stack), one invocation per pass, each point T then J (pass 1) and J then T (pass 2). Ports 30000-30999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync19b/jmh/results/vsync19b-2026-11-28
A=/tmp/vsync19b/A.jar
{
for pass in 1 2; do
  if [ $pass = 1 ]; then sys=tandem-ordered,jgroups-sequencer; else sys=jgroups-sequencer,tandem-ordered; fi
  echo "== pass $pass ($sys) $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 140 java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024 --systems $sys \
     --jgroups-stack legacy --warmup 2 --measure 3 --base-port 30000 --thread-cpu true 2>>$out/matrix.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/matrix.txt 2>&1
