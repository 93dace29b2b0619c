#!/usr/bin/env bash
# Lead, session 24: trials.sh with a longer adaptive warm-up cap (60 s, the harness default, instead of 20 s), for the 64-client check.
# Usage: trials.sh OUTDIR ENTRY...   ENTRY = label:system:clients:config:tree[:KEY=VALUE] (a replica --opt for that system)
#   tree: main = /tmp/lead24-base (main d4813d3d, built there); merge = /work/wt-merge24 (main + this session's branches)
# Every trial uses main's harness jar (the harness is unchanged this session), so only the servers differ.
set -u
out="$1"; shift
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
echo "round start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree opt <<<"$e"
  extra=(); [[ -n "${opt:-}" ]] && extra=(--opt "$sys:$opt")
  case "$tree" in main) repo=/tmp/lead24-base ;; merge) repo=/work/wt-merge24 ;; *) echo "bad tree $tree"; exit 2 ;; esac
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) steal $(vmstat 1 2 | tail -1 | awk '{print $17}')" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/lead24-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup 10 --max-warmup 60 \
    --measure 8 --slowdown none "${extra[@]}" --base-port 20000 --work-dir /var/tmp/lead24-peerbench --out "$out/$label" > "$out/$label.log" 2>&1
  echo "$label end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
