#!/usr/bin/env bash
# The model side of the lead's s13 validation (the real runs in ../validate-fsync, copied from /work/runs/s13): the same
# SimValidation command as the lead's model.sh, with a given benchmarks.jar and table. Deterministic; no bench needed.
#   tools/model.sh JAR TABLE OUT.txt [SimValidation options...]
set -euo pipefail
jar=$1; table=$2; out=$3; shift 3
d="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/validate-fsync"
real=()
for c in 1 16 64; do for s in tandem-raft tandem-multipaxos tandem-unreplicated; do real+=(--real "$c=$d/real-$c-$s"); done; done
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp "$jar" \
  io.tandem.bench.sim.SimValidation "${real[@]}" --costs "$table" --config 64B-fsync --cores 2 --out "${out%.txt}.csv" "$@" 2>&1 | grep -v '^WARNING' | tee "$out"
