#!/usr/bin/env bash
# Run 1 (through /work/tools/bench): the adaptive warm-up on tandem-raft (64 clients, fsync off), once plain and once
# with JFR (settings=profile) on every JVM. Usage: profile.sh OUTDIR
set -u
out="$1"; tree=/work/wt-hotpath6
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/jfr"
echo "start $(date -u +%T) $(uptime)" > "$out/load.txt"
cd "$tree"
$java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
  --repo "$tree" --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 64 --warmup 15 --max-warmup 60 --measure 10 \
  --slowdown none --base-port 25000 --work-dir /var/tmp/hp6-peerbench --out "$out/plain" > "$out/plain.log" 2>&1
echo "mid $(date -u +%T) $(uptime)" >> "$out/load.txt"
$java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
  --repo "$tree" --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 64 --warmup 15 --max-warmup 60 --measure 10 \
  --slowdown none --base-port 25000 --work-dir /var/tmp/hp6-peerbench --out "$out/jfr-run" \
  --jvm-opt=-XX:StartFlightRecording=delay=30s,duration=15s,settings=profile,filename=$out/jfr/rec-%p.jfr > "$out/jfr-run.log" 2>&1
echo "end $(date -u +%T) $(uptime)" >> "$out/load.txt"
