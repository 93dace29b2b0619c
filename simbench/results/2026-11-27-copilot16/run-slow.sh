#!/usr/bin/env bash
# copilot16: the slow-pilot rows that must not get worse (simbench/copilot-slow-pilot.scenarios: healthy, net +40 ms,
# CPU 20 %/100 ms; the +5 ms row too), seeds 1-3, for one jar.   run-slow.sh JAR OUTDIR
set -euo pipefail
jar=$1; out=$2
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
here=$(cd "$(dirname "$0")" && pwd)
scen=$here/../../copilot-slow-pilot.scenarios
mkdir -p "$out"
uptime > "$out/load-start.txt"
for seed in ${SEEDS:-1 2 3}; do
  sed "s/^seed=.*/seed=$seed/" "$scen" > "$out/slow-seed$seed.scenarios"
  nice -n 10 $java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" simbench \
    --scenarios "$out/slow-seed$seed.scenarios" --out "$out/seed$seed" > "$out/seed$seed.txt" 2>&1
done
uptime > "$out/load-end.txt"
