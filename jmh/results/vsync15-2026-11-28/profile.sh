#!/bin/bash
# vsync15 profile: this branch's classes (B), 2 and 3 members, ordered, 1 KiB, JFR ("profile" settings) of each
# measured interval + thread CPU. Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
B=/tmp/vsync15/B/core:/tmp/vsync15/B/protocols:/tmp/vsync15/A.jar
out=/work/wt-vsync15/jmh/results/vsync15-2026-11-28
{
echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 java -cp $B io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
  --warmup 2 --measure 4 --base-port 24000 --thread-cpu true --jfr /tmp/vsync15/prof 2>/dev/null | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/profile.txt 2>&1
