#!/usr/bin/env bash
# One round (one /work/tools/bench call) of hotpath7's fill-in of issue 25's table: per ENTRY one PeerBenchmark call
# with one system, one run, 64 B values, the adaptive warm-up (15..30 s), 10 s measured, base port 25000.
# A hard budget: no trial starts once elapsed + its estimated length would pass BUDGET seconds (bench runs <= 5 min).
# Usage: round.sh OUTDIR BUDGET ENTRY...   ENTRY: <system>:<clients>:<config>, e.g. tandem-raft:16:64B-fsync
set -u
out="$1"; budget="$2"; shift 2
tree=/work/wt-hotpath7
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
cd "$tree"
t0=$(date +%s)
for e in "$@"; do
  IFS=: read -r sys clients cfg <<<"$e"
  case "$sys" in tandem-unreplicated) est=42 ;; jgroups-raft) est=48 ;; *) est=52 ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$e skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  name="$sys-c$clients-$cfg"
  echo "$name start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$tree" --systems "$sys" --runs 1 --configs "$cfg" --clients "$clients" --warmup 15 --max-warmup 30 --measure 10 \
    --slowdown none --base-port 25000 --work-dir /var/tmp/hp7-peerbench --out "$out/$name" > "$out/$name.log" 2>&1
  echo "$name end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$name.log")" >> "$out/load.txt"
done
