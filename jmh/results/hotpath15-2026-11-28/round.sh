#!/usr/bin/env bash
# hotpath15 (hotpath13's round.sh with this branch's paths and ports): one /work/tools/bench call = several PeerBenchmark trials, one system and one run each, 64 B values, fsync off,
# adaptive warm-up WARMUP..MAXWARM s (env, default 10..20), MEASURE s measured (default 6), base port 15000, the
# measured window's thread CPU (--profile-window). A trial is skipped when elapsed + its estimate would pass BUDGET s.
# Usage: round.sh OUTDIR BUDGET ENTRY...   ENTRY: label:system:clients:tree   tree: base|new
#   base = /tmp/hp15-base/tree (main 4c321679 built with install -DskipTests), new = /work/wt-hotpath15; the harness jar is this branch's.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-hotpath15
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
cd "$here"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients tree <<<"$e"
  case "$tree" in base) repo=/tmp/hp15-base/tree ;; *) repo=$here ;; esac
  est=${EST:-36}
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs 64B-nofsync --clients "$clients" --warmup ${WARMUP:-10} --max-warmup ${MAXWARM:-20} \
    --measure ${MEASURE:-6} --slowdown none --base-port 15000 --work-dir /var/tmp/hp15-peerbench --out "$out/$label" \
    --profile-window "$out/profile" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
