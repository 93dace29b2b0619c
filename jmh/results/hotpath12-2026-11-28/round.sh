#!/usr/bin/env bash
# hotpath12: one /work/tools/bench call = several PeerBenchmark trials, one system and one run each, 64 B values, fsync
# off, adaptive warm-up WARMUP..MAXWARM s (env, default 10..20), MEASURE s measured (default 8), base port 21000 (this
# helper's range), the measured window's thread CPU (--profile-window). A trial is skipped when elapsed + its estimate
# would pass BUDGET s.
# Usage: round.sh OUTDIR BUDGET ENTRY...   ENTRY: label:system:clients:tree[:jfr]   tree: base|new
#   base = /tmp/hp12-base (main 8f2e954's peer-tandem.jar), new = /work/wt-hotpath12; the harness jar is this branch's.
#   jfr: every JVM keeps a continuous JFR recording (allocation samples, CPU-time samples every 2 ms), cut to the window.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-hotpath12
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
cd "$here"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients tree jfr <<<"$e"
  case "$tree" in base) repo=/tmp/hp12-base ;; *) repo=$here ;; esac
  case "$jfr" in jfr) est=${ESTJFR:-45} ;; *) est=${EST:-38} ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  extra=(--profile-window "$out/profile")
  if [[ "$jfr" == jfr ]]; then
    extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms")
  fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs 64B-nofsync --clients "$clients" --warmup ${WARMUP:-10} --max-warmup ${MAXWARM:-20} \
    --measure ${MEASURE:-8} --slowdown none --base-port 21000 --work-dir /var/tmp/hp12-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
