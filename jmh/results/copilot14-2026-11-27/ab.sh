#!/usr/bin/env bash
# Copilot healthy throughput against MultiPaxos in real processes (copilot14): for each label=jar[,protocol]
# argument in order, one fresh 5-node cluster through the fail-slow harness, one healthy window, fsync on,
# disk images on ext4 (/var/tmp/copilot14), CLIENTS closed-loop clients (env, default 16), ports 21000+.
set -u
out="$1"; shift
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
clients="${CLIENTS:-16}"
mkdir -p "$out"
for arg in "$@"; do
  label="${arg%%=*}"; rest="${arg#*=}"; jar="${rest%%,*}"; proto=copilot
  if [[ "$rest" == *,* ]]; then proto="${rest#*,}"; fi
  echo "$label start $(date -u +%T) $(uptime)" >> "$out/runs.txt"
  $J --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$jar" io.tandem.bench.FailSlowBenchmark --protocol $proto \
    --scenarios n5-healthy --clients "$clients" --warmup 15 --max-warmup 20 --settle 2 --duration 8 --runs 1 \
    --image-dir /var/tmp/copilot14/images --work-dir /var/tmp/copilot14/work --base-port 21000 --port-spacing 100 \
    --out "$out/$label" > "$out/$label.log" 2>&1
  echo "$label end $(date -u +%T) $(uptime)" >> "$out/runs.txt"
done
