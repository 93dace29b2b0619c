#!/usr/bin/env bash
# mp17: one /work/tools/bench call = several peer-harness trials (one system, one run each), 64 B values, ports 23000+.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...   ENTRY = label:system:clients:config:tree[:jfr]
#   config: 64B-nofsync | 64B-fsync; tree: base (main 8f2e954's peer-tandem.jar, /tmp/mp17-base) | new (this worktree)
#   jfr: every JVM records JFR CPU-time samples (2 ms) for the window profile.
# Every trial uses the harness jar of main (/tmp/mp17-base/benchmarks.jar), so only the servers differ.
# A trial is skipped when the time used so far plus its estimate (EST s, default 40) would pass BUDGET_S.
set -u
out="$1"; budget="$2"; shift 2
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
t0=$(date +%s)
echo "round start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree jfr <<<"$e"
  case "$tree" in base) repo=/tmp/mp17-base ;; new) repo=/work/wt-mp17 ;; *) echo "bad tree $tree"; exit 2 ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + ${EST:-40} > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  extra=(--profile-window "$out/profile")
  [[ "${jfr:-}" == jfr ]] && extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms")
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/mp17-base/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup ${WARMUP:-10} --max-warmup ${MAXWARM:-20} \
    --measure ${MEASURE:-8} --slowdown none --base-port 23000 --work-dir /var/tmp/mp17-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
