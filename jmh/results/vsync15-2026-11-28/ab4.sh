#!/bin/bash
# vsync15 part 4: B2 (the final code) against JGroups (legacy stack, settle step) at 1 KiB, 2 and 3 members,
# interleaved J B2 B2 J J B2. Ports 24000-25999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync15/jmh/results/vsync15-2026-11-28
A=/tmp/vsync15/A.jar
B2=/tmp/vsync15/B2/core:/tmp/vsync15/B2/protocols:/tmp/vsync15/A.jar
i=0
{
for s in J B2 B2 J J B2; do
  port=$((24000 + (i % 2) * 1000)); i=$((i + 1))
  echo "== $s $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ $s = J ]; then
    timeout 60 java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems jgroups-sequencer --jgroups-stack legacy \
       --warmup 1.5 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab-part4.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
  else
    timeout 60 java -cp $B2 io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
       --warmup 1.5 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab-part4.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
  fi
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab-part4.txt 2>&1
