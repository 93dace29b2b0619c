#!/usr/bin/env bash
# follow24 (from wire22, alloc21, raft20): one /work/tools/bench call = several PeerBenchmark trials (one system, one run each, 3 replicas), interleaved
# between two built trees through this branch's harness jar, base port 25000, the measured window's thread CPU.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...
#   ENTRY = label:system:clients:config:tree[:opt,opt...]   tree: base (/tmp/follow24-base = main d4813d3d) | new (/work/wt-follow24)
#   opts: jfr (continuous JFR, CPU-time samples every 2 ms, cut to the window), jfra (continuous JFR with the profile
#   settings' allocation samples (jfrall: both) and GC events, per-thread allocation totals every second, no CPU samples), or any
#   -Dkey=value passed to every JVM.
# A trial is skipped when elapsed + its estimate (42 s, jfr 52 s) would pass BUDGET_S.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-follow24
# wire23: BASE_TREE, PORT and WORK_DIR may be set by the caller.
base=${BASE_TREE:-/tmp/follow24-base}; port=${PORT:-25000}; work=${WORK_DIR:-/var/tmp/follow24-peerbench}
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree opts <<<"$e"
  v="TREE_$tree"  # wire23: a tree named by the environment (TREE_<name>=dir) comes first
  if [[ -n "${!v:-}" ]]; then repo=${!v}; else case "$tree" in base) repo=$base ;; new) repo=$here ;; *) echo "bad tree $tree"; exit 2 ;; esac; fi
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
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$base/jmh/target/benchmarks.jar" io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup 10 --max-warmup 20 \
    --measure 8 --slowdown none --base-port "$port" --work-dir "$work" --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
