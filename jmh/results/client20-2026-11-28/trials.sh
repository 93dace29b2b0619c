#!/usr/bin/env bash
# client20, session 20: interleaved peer-harness trials from two built trees, one system and one run per trial
# (after the lead's jmh/results/lead-s19-2026-11-28/trials.sh).
# Usage: trials.sh OUTDIR WARMUP MAXWARMUP MEASURE ENTRY...   ENTRY = label:system:clients:config:tree
#   tree: new  = /work/wt-client20 (this branch)
#         base = /tmp/client20-base (main 96fd279b from git archive, built there)
# Every trial uses this branch's harness jar, so only the servers differ. Thread CPU of each measured window
# goes to OUTDIR/profile (PeerBenchmark --profile-window: /proc at the window's start and end).
set -u
out="$1"; warm="$2"; maxwarm="$3"; measure="$4"; shift 4
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
echo "round start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree <<<"$e"
  case "$tree" in new) repo=/work/wt-client20 ;; base) repo=/tmp/client20-base ;; *) echo "bad tree $tree"; exit 2 ;; esac
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /work/wt-client20/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup "$warm" --max-warmup "$maxwarm" \
    --measure "$measure" --slowdown none --base-port 27000 --work-dir /var/tmp/client20-peerbench --profile-window "$out/profile/$label" \
    --out "$out/$label" > "$out/$label.log" 2>&1
  echo "$label end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
