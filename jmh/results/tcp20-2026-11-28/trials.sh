#!/usr/bin/env bash
# tcp20: one bench call = PeerBenchmark trials (tandem-raft, 3 replicas, one run each), interleaved between two built
# trees through this branch's harness jar, base port 18000, each trial's measured window profiled by thread.
# Usage: trials.sh OUTDIR ENTRY...   ENTRY = label:clients:tree[:-Dkey=value]
#   tree: base = /tmp/tcp20-base (main 96fd279b, built there) | new = /work/wt-tcp20 (this branch)
set -u
out="$1"; shift
here=/work/wt-tcp20
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label clients tree opt <<<"$e"
  case "$tree" in base) repo=/tmp/tcp20-base ;; new) repo=$here ;; *) echo "bad tree $tree"; exit 2 ;; esac
  extra=(--profile-window "$out/profile")
  [[ -n "${opt:-}" ]] && extra+=("--jvm-opt=$opt")
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  timeout 80 $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp $here/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems tandem-raft --runs 1 --configs 64B-nofsync --clients "$clients" --warmup 10 --max-warmup 15 \
    --measure 8 --slowdown none --base-port 18000 --work-dir /var/tmp/tcp20-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
