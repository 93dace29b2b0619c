#!/usr/bin/env bash
# copilot16: only the 16-client rows of simbench/copilot-healthy-vs-mp.scenarios at one seed.   run-16.sh JAR OUTDIR SEED
set -euo pipefail
jar=$1; out=$2; seed=$3
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
uptime > "$out/load-start-seed$seed.txt"
grep -v ' 64 healthy' "$here/../../copilot-healthy-vs-mp.scenarios" | sed "s/^seed=.*/seed=$seed/" > "$out/c16-seed$seed.scenarios"
nice -n 10 $java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" simbench \
  --scenarios "$out/c16-seed$seed.scenarios" --out "$out/c16-seed$seed" > "$out/c16-seed$seed.txt" 2>&1
uptime > "$out/load-end-seed$seed.txt"
