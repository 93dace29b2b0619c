#!/usr/bin/env bash
# mp20: one /work/tools/bench call = several peer-harness trials (one system, one run each), ports 24000+.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...   ENTRY = label:system:clients:config:tree[:jfr]
#   tree: base (main 96fd279b built in /tmp/mp20-base) | new (this worktree)
#   jfr: every JVM keeps a JFR recording (profile settings: allocation samples, plus CPU-time samples every 2 ms);
#        --profile-window cuts the measured window out of it.
# Every trial uses main's harness jar (/tmp/mp20-base/jmh/target/benchmarks.jar), so only the servers differ.
# A trial is skipped when the time used so far plus EST s (default 40) would pass BUDGET_S.
set -u
out="$1"; budget="$2"; shift 2
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
t0=$(date +%s)
echo "round start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree jfr <<<"$e"
  case "$tree" in base) repo=/tmp/mp20-base ;; new) repo=/work/wt-mp20 ;; *) echo "bad tree $tree"; exit 2 ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + ${EST:-40} > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  extra=(--profile-window "$out/profile")
  [[ "${jfr:-}" == jfr ]] && extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms")
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/mp20-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup ${WARMUP:-10} --max-warmup ${MAXWARM:-16} \
    --measure ${MEASURE:-8} --slowdown none --base-port 24000 --work-dir /var/tmp/mp20-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
