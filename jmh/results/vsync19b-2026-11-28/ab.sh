#!/bin/bash
# vsync19b part 3: A = main 77c51415 (A.jar), B = A with this branch's protocols classes ahead (messageId without the
# payload's length), ordered, 1 KiB, 2 and 3 members, interleaved A B B A A B. Ports 30000-31999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync19b/jmh/results/vsync19b-2026-11-28
A=/tmp/vsync19b/A.jar
B=/tmp/vsync19b/B/protocols:/tmp/vsync19b/A.jar
i=0
{
for s in A B B A A B; do
  port=$((30000 + (i % 2) * 1000)); i=$((i + 1))
  if [ $s = A ]; then cp=$A; else cp=$B; fi
  echo "== $s $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 22 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
done
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab.txt 2>&1
