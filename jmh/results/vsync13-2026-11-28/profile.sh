#!/bin/bash
# vsync13 profile: main 52b6897's classes (A) ahead of main's benchmarks.jar, 3 members, ordered, 1 KiB and 8 KiB,
# JFR ("profile" settings) of each measured interval + thread CPU. Ports 23000-23999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
J=/tmp/vsync13/base.jar; c=/tmp/vsync13/A; A=$c/core:$c/protocols:$c/transport-tcp:$J
echo "== profile $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 3 --payloads 1024,8192 --systems tandem-ordered \
  --warmup 2 --measure 4 --base-port 23000 --thread-cpu true --jfr /tmp/vsync13/prof-A 2>/dev/null | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
