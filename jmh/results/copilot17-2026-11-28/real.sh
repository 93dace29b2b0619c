#!/usr/bin/env bash
# copilot17: Copilot (Commit piggyback on) against MultiPaxos, healthy, real processes: for each label=jar,protocol in
# order, one fresh 5-node cluster through the fail-slow harness (FailSlowBenchmark n5-healthy), 16 closed-loop clients,
# fsync on, disk images on ext4 (/var/tmp/copilot17), ports 21000+ (spacing 100). Run through /work/tools/bench.
set -u
out="$1"; shift
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
for arg in "$@"; do
  label="${arg%%=*}"; rest="${arg#*=}"; jar="${rest%%,*}"; proto="${rest#*,}"
  echo "$label start $(date -u +%T) $(uptime)" >> "$out/runs.txt"
  $J --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$jar" io.tandem.bench.FailSlowBenchmark --protocol "$proto" \
    --scenarios n5-healthy --clients 16 --warmup 15 --max-warmup 20 --settle 2 --duration 8 --runs 1 \
    --image-dir /var/tmp/copilot17/images --work-dir /var/tmp/copilot17/work --base-port 21000 --port-spacing 100 \
    --out "$out/$label" > "$out/$label.log" 2>&1
  echo "$label end $(date -u +%T) $(uptime)" >> "$out/runs.txt"
done
