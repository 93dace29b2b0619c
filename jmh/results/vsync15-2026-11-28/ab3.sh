#!/bin/bash
# vsync15 part 3: B (the four loop cuts) against B2 (B + no payload byte read for the production prefix hash,
# ShardState.messageId), 1 KiB, 2 and 3 members, interleaved B2 B B B2 B2 B. Ports 24000-25999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync15/jmh/results/vsync15-2026-11-28
B=/tmp/vsync15/B/core:/tmp/vsync15/B/protocols:/tmp/vsync15/A.jar
B2=/tmp/vsync15/B2/core:/tmp/vsync15/B2/protocols:/tmp/vsync15/A.jar
i=0
{
for s in B2 B B B2 B2 B; do
  port=$((24000 + (i % 2) * 1000)); i=$((i + 1))
  cp=$B; [ $s = B2 ] && cp=$B2
  echo "== $s $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
     --warmup 1.5 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab-part3.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab-part3.txt 2>&1
