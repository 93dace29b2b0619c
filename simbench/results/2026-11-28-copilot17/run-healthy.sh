#!/usr/bin/env bash
# copilot17: Copilot vs MultiPaxos healthy rows (simbench/copilot-healthy-vs-mp.scenarios: 5 nodes, 16 and 64 clients,
# Copilot and MultiPaxos in the same invocation) at the given seeds, for one jar and one cost table.
#   run-healthy.sh JAR COSTS|default OUTDIR [SEEDS...]    (default seeds 1 2 3; outside bench, nice -n 10: virtual time)
set -euo pipefail
jar=$1; costs=$2; out=$3; shift 3
seeds=("$@"); ((${#seeds[@]})) || seeds=(1 2 3)
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
here=$(cd "$(dirname "$0")" && pwd)
scen=$here/../../copilot-healthy-vs-mp.scenarios
mkdir -p "$out"
c=(); [[ "$costs" == default ]] || c=(--costs "$costs")
for seed in "${seeds[@]}"; do
  uptime > "$out/load-start-seed$seed.txt"
  sed "s/^seed=.*/seed=$seed/" "$scen" > "$out/healthy-seed$seed.scenarios"
  nice -n 10 $java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" simbench \
    --scenarios "$out/healthy-seed$seed.scenarios" --out "$out/seed$seed" "${c[@]}" > "$out/seed$seed.txt" 2>&1
  uptime > "$out/load-end-seed$seed.txt"
done
