#!/usr/bin/env bash
# Lead, session 21: interleaved peer-harness trials from two built trees, one system and one run per trial, 64 B values.
# Usage: trials.sh OUTDIR ENTRY...   ENTRY = label:system:clients:config:tree
#   tree: merge = /work/wt-merge21 (the session-21 merge)
#         base  = /tmp/lead21-base (main c7c59051, session 20 head, built there)
# Every trial uses the merge's harness jar, so only the servers differ.
set -u
out="$1"; shift
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
echo "round start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree <<<"$e"
  case "$tree" in merge) repo=/work/wt-merge21 ;; base) repo=/tmp/lead21-base ;; *) echo "bad tree $tree"; exit 2 ;; esac
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /work/wt-merge21/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup 10 --max-warmup 20 \
    --measure 8 --slowdown none --base-port 20000 --work-dir /var/tmp/lead21-peerbench --out "$out/$label" > "$out/$label.log" 2>&1
  echo "$label end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
