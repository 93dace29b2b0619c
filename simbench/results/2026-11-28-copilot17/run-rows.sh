#!/usr/bin/env bash
# copilot17: single rows of simbench/copilot-healthy-vs-mp.scenarios (same timeline: 2 s warm-up, 1 s settle, 3 s measured,
# one core per node, 5 nodes), one invocation per row and seed, for one jar and one cost table.
#   run-rows.sh JAR COSTS|default OUTDIR "PROTOCOL CLIENTS" SEEDS...      (outside bench, nice -n 5: virtual time)
set -euo pipefail
jar=$1; costs=$2; out=$3; row=$4; shift 4
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
c=(); [[ "$costs" == default ]] || c=(--costs "$costs")
set -- "$@"
for seed in "$@"; do
  name="${row// /-}-seed$seed"
  printf 'seed=%s\nwarmup=2s\nsettle=1s\nmeasure=3s\ncores=1\n\n%s\n' "$seed" "$(echo "$row" | awk '{print $1" 5 "$2" healthy"}')" > "$out/$name.scenarios"
  uptime > "$out/$name.load-start"
  nice -n 5 $java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" simbench \
    --scenarios "$out/$name.scenarios" --out "$out/$name" "${c[@]}" > "$out/$name.txt" 2>&1
  uptime > "$out/$name.load-end"
done
