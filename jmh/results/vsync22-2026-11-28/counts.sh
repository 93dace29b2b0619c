#!/bin/bash
# vsync22 step 2: how many messages each push and each send/recv carries. P = the probe build (branch commit "probe",
# reverted after): its transport-tcp, protocols and MulticastBenchmark classes ahead of main f3bf0f16's benchmarks.jar.
# One invocation, 1 KiB and 8 KiB at 2 and 3 members. Ports 27000-29999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync22/jmh/results/vsync22-2026-11-28
A=/tmp/vsync22-base/jmh/target/benchmarks.jar
echo "== P $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 100 java -cp /tmp/vsync22-probe:$A io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems tandem-ordered \
   --warmup 2 --measure 3 --base-port 27000 --thread-cpu true 2>>$out/counts.err | grep -E '^tandem|^# '
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
