#!/usr/bin/env bash
# copilot16: Copilot vs MultiPaxos healthy rows (simbench/copilot-healthy-vs-mp.scenarios) at seeds 1-3, for one jar.
#   run-healthy.sh JAR OUTDIR
set -euo pipefail
jar=$1; out=$2
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
here=$(cd "$(dirname "$0")" && pwd)
scen=$here/../../copilot-healthy-vs-mp.scenarios
mkdir -p "$out"
uptime > "$out/load-start.txt"
for seed in 1 2 3; do
  sed "s/^seed=.*/seed=$seed/" "$scen" > "$out/healthy-seed$seed.scenarios"
  nice -n 10 $java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" simbench \
    --scenarios "$out/healthy-seed$seed.scenarios" --out "$out/seed$seed" > "$out/seed$seed.txt" 2>&1
done
uptime > "$out/load-end.txt"
