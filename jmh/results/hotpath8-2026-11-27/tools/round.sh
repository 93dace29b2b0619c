#!/usr/bin/env bash
# One /work/tools/bench call of hotpath8: per ENTRY one PeerBenchmark call (this branch's harness) with one system,
# one run, 64 B values, the adaptive warm-up (15..30 s), 10 s measured, base port 25000. A hard budget: no trial
# starts once elapsed + its estimate would pass BUDGET seconds (bench calls stay under 5 minutes).
# Usage: round.sh OUTDIR BUDGET ENTRY...
#   ENTRY: <label>:<system>:<clients>:<config>[:<repo>][:jfr]   repo default: this tree; base = /tmp/hp8-base (main's jars)
#   jfr: a continuous JFR recording (profile settings plus CPU-time samples every 2 ms) on every JVM and
#        --profile-window OUTDIR/profile (the measured window's thread CPU and JFR cut out after the trial)
set -u
out="$1"; budget="$2"; shift 2
tree=/work/wt-hotpath8
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
cd "$tree"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients cfg repo jfr <<<"$e"
  case "$repo" in ""|new) repo=$tree ;; base) repo=/tmp/hp8-base ;; esac
  case "$sys" in tandem-unreplicated) est=42 ;; jgroups-raft) est=48 ;; *) est=55 ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  extra=()
  if [[ "$jfr" == jfr ]]; then
    extra=(--profile-window "$out/profile" "--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms")
  fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$cfg" --clients "$clients" --warmup 15 --max-warmup 30 --measure 10 \
    --slowdown none --base-port 25000 --work-dir /var/tmp/hp8-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
