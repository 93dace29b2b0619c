#!/usr/bin/env bash
# The same as tools/model.sh for chosen client counts only (e.g. "1"): tools/model-points.sh JAR TABLE OUT.txt "1 64"
set -euo pipefail
jar=$1; table=$2; out=$3; counts=$4; shift 4
d="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/validate-fsync"
real=()
for c in $counts; do for s in tandem-raft tandem-multipaxos tandem-unreplicated; do real+=(--real "$c=$d/real-$c-$s"); done; done
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp "$jar" \
  io.tandem.bench.sim.SimValidation "${real[@]}" --costs "$table" --config 64B-fsync --cores 2 --out "${out%.txt}.csv" "$@" 2>&1 | grep -v '^WARNING' > "$out"
