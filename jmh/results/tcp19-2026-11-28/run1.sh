#!/bin/bash
# tcp19 part 1: the bare loopback and the transport's no-protocol numbers on main (A.jar), plus a JFR profile of the
# transport-only 8 KiB single stream. Ports 12000-12999.
set -u
D=$(cd "$(dirname "$0")" && pwd)
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
A=/tmp/tcp19-base/A.jar
echo "load start: $(uptime)"
$J -cp $A io.tandem.bench.vsync.LoopbackBandwidth --streams 1,2 --write 8192 --warmup 0.5 --measure 1.5 --base-port 12000
$J -cp $A io.tandem.bench.vsync.LoopbackBandwidth --streams 1,2 --write 262144 --warmup 0.5 --measure 1.5 --base-port 12100
$J -Xmx4g -cp $A io.tandem.bench.vsync.LargeMessageBenchmark --sizes 2,3 --payloads 8192,262144 --block 262144 --tandem false \
   --warmup 1 --measure 2 --base-port 12200
$J -Xmx4g -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
   -XX:StartFlightRecording=settings=profile,delay=2s,duration=4s,filename=$D/run1-raw8k.jfr \
   -cp $A io.tandem.bench.vsync.LargeMessageBenchmark --sizes 2 --payloads 8192 --block 262144 --tandem false \
   --warmup 1.5 --measure 4 --base-port 12300
echo "load end: $(uptime)"
