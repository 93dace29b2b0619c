#!/usr/bin/env bash
# Lead, session 26: is Tandem's Raft at 64 clients CPU-bound? One peer-harness trial (main b3ef2d8b's jars in
# /work/wt-merge25) while /proc/stat is sampled every second: machine-wide user/system/softirq/idle/steal per second.
# Usage (inside bench): idle.sh OUTDIR SYSTEM CLIENTS
out=$1; sys=$2; clients=$3
mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
( while true; do echo "$(date -u +%T.%N | cut -c1-12) $(head -1 /proc/stat)"; sleep 1; done ) > "$out/stat.txt" &
sampler=$!
$java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /work/wt-merge25/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
  --repo /work/wt-merge25 --systems "$sys" --runs 1 --configs 64B-nofsync --clients "$clients" --warmup 10 --measure 8 \
  --slowdown none --base-port 20000 --work-dir /var/tmp/lead26-peerbench --out "$out/run" --profile-window "$out/run/profile" > "$out/run.log" 2>&1
kill $sampler
