#!/usr/bin/env bash
# The model side of the 9-point validation against the lead's quiet real runs of session 15 (../real-s15-quiet, main 7dbed94,
# 21:01-21:08 UTC), with a given benchmarks.jar (JAR, default this worktree's) and table. Deterministic; no bench needed.
#   tools/model.sh TABLE OUT.txt [SimValidation options, e.g. --stages]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
table=$1; out=$2; shift 2
d="$here/real-s15-quiet"
real=()
for c in ${CLIENTS:-1 16 64}; do for s in ${SYSTEMS:-tandem-raft tandem-multipaxos tandem-unreplicated}; do real+=(--real "$c=$d/real-$c-$s"); done; done
nice -n 10 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp "${JAR:-$here/../../../jmh/target/benchmarks.jar}" \
  io.tandem.bench.sim.SimValidation "${real[@]}" --costs "$table" --config 64B-fsync --cores 2 --out "${out%.txt}.csv" "$@" 2>&1 | grep -v '^WARNING' | tee "$out"
