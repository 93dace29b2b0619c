#!/bin/bash
# vsync10 profile: main's jar (A) at the losing points, ordered, JFR of each measured interval + thread CPU.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=${A:-/tmp/vsync10/base.jar}
out=/work/wt-vsync10/jmh/results/vsync10-2026-11-27
echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems tandem-ordered \
  --warmup 2 --measure 4 --base-port 23000 --thread-cpu true --jfr /tmp/vsync10/prof-A 2>/dev/null | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
