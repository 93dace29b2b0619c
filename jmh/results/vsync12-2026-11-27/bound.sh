#!/bin/bash
# vsync12 step 1: the loopback bound, JGroups' full matrix and a profile of main, in one bench invocation.
# (1) LargeMessageBenchmark raw streams only (--tandem false): one TCP transport streaming to another
#     ("raw"), and n-1 such streams at once ("raw-streams", n = 3..5): 1 MiB blocks (the bandwidth), and
#     the payload sizes themselves (1 KiB, 8 KiB: the transport's rate for messages of that size).
# (2) MulticastBenchmark jgroups-sequencer, full matrix (2-5 members, 64 B/1 KiB/8 KiB), --thread-cpu.
# (3) main's tandem-ordered at 2-3 members x 1 KiB/8 KiB with JFR + thread CPU (the profile).
# A = main daca97b as /tmp/vsync12/base.jar. Ports 23000-23999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync12/base.jar
out=/work/wt-vsync12/jmh/results/vsync12-2026-11-27
{
echo "== raw $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -Xmx4g --enable-native-access=ALL-UNNAMED -cp $A io.tandem.bench.vsync.LargeMessageBenchmark --tandem false \
   --sizes 2,3,4,5 --payloads 1024,8192,1048576 --block 1048576 --warmup 1 --measure 2 --runs 1 --base-port 23000 2>&1 | grep -v "INFO\|WARN\|^\s*at "
echo "== jgroups $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024,8192 --systems jgroups-sequencer \
   --warmup 2 --measure 4 --base-port 23200 --thread-cpu true 2>/dev/null | grep -E '^(tandem|jgroups)|^# '
echo "== profile A $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp $A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems tandem-ordered \
   --warmup 2 --measure 4 --base-port 23500 --thread-cpu true --jfr /tmp/vsync12/prof-A 2>/dev/null | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/bound.txt 2>&1
