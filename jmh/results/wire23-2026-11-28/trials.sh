#!/usr/bin/env bash
# wire23 (from wire22): one /work/tools/bench call = several PeerBenchmark trials (one system, one run each, 3 replicas), interleaved
# between two built trees through this branch's harness jar, base port 22000, the measured window's thread CPU.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...
#   ENTRY = label:system:clients:config:tree[:opt,opt...]   tree: base (/tmp/wire23-base = main 020b458c) | w22 (/tmp/wire23-w22: the peer jar of this branch at 8ca3c28f+the teardown fix) | new (/work/wt-wire22)
#   opts: jfr (continuous JFR, CPU-time samples every 2 ms, cut to the window), jfra (continuous JFR with the profile
#   settings' allocation samples (jfrall: both) and GC events, per-thread allocation totals every second, no CPU samples), or any
#   -Dkey=value passed to every JVM.
# A trial is skipped when elapsed + its estimate (42 s, jfr 52 s) would pass BUDGET_S.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-wire22
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree opts <<<"$e"
  case "$tree" in base) repo=/tmp/wire23-base ;; w22) repo=/tmp/wire23-w22 ;; new) repo=$here ;; *) echo "bad tree $tree"; exit 2 ;; esac
  extra=(--profile-window "$out/profile"); est=42
  IFS=, read -ra olist <<<"${opts:-}"
  for o in "${olist[@]}"; do
    case "$o" in
      jfr) extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms"); est=52 ;;
      jfrall) extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms,jdk.ThreadAllocationStatistics#period=1s"); est=52 ;;
      jfra) extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.ThreadAllocationStatistics#period=1s"); est=52 ;;
      -D*|-X*) extra+=("--jvm-opt=$o") ;;
    esac
  done
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/wire23-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup 10 --max-warmup 20 \
    --measure 8 --slowdown none --base-port 22000 --work-dir /var/tmp/wire23-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
