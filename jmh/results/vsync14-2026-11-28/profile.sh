#!/bin/bash
# vsync14 profile: main 8f2e954's classes (this branch's harness), 2 and 3 members, ordered, 1 KiB, JFR ("profile"
# settings) of each measured interval + thread CPU. Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync14/jx:/tmp/vsync14/A/core:/tmp/vsync14/A/protocols:/tmp/vsync14/A/transport-tcp:/tmp/vsync14/base.jar
out=/work/wt-vsync14/jmh/results/vsync14-2026-11-28
{
echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems tandem-ordered \
  --warmup 2 --measure 4 --base-port 24000 --thread-cpu true --jfr /tmp/vsync14/prof 2>/dev/null | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/profile.txt 2>&1
