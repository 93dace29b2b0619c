#!/usr/bin/env bash
# hotpath9: one /work/tools/bench call = several PeerBenchmark trials, one system and one run each, 64 B values,
# adaptive warm-up 8..15 s (env WARMUP, MAXWARM), 6 s measured, base port 25000, the measured window's thread CPU (--profile-window).
# A trial is skipped when elapsed + its estimate would pass BUDGET seconds (each bench call stays under 5 minutes).
# Usage: round.sh OUTDIR BUDGET ENTRY...   ENTRY: label:system:clients:config:tree[:jfr]   tree: base|new
#   base = /tmp/hp9-base (main daca97b's jars), new = /work/wt-hotpath9; the harness jar is always this branch's.
#   jfr: every JVM also keeps a continuous JFR recording (CPU-time samples every 2 ms), cut to the window.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-hotpath9
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
cd "$here"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients cfg tree jfr <<<"$e"
  case "$tree" in base) repo=/tmp/hp9-base ;; *) repo=$here ;; esac
  case "$jfr" in jfr) est=40 ;; *) est=${EST:-30} ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  extra=(--profile-window "$out/profile")
  if [[ "$jfr" == jfr ]]; then
    extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms")
  fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$cfg" --clients "$clients" --warmup ${WARMUP:-8} --max-warmup ${MAXWARM:-15} --measure 6 \
    --slowdown none --base-port 25000 --work-dir /var/tmp/hp9-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  # the profile's files are named by trial tag only: keep them apart per entry
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
