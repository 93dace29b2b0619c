#!/usr/bin/env bash
# calibrate-handlers.sh again, three repetitions, with the Commit-piggyback engine in jmh/target/benchmarks.jar
# (a FastAccept to a non-pilot replica now carries the pilot's held Commits). Run through bench.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="$root/simbench/results/2026-11-28-copilot17"
cd "$root"
for k in 1 2 3; do
  { date -u; uptime; } > "$out/calibrate-pb-load-start-$k.txt"
  TANDEM_SKIP_BUILD=1 timeout 120 jmh/run-simcalibrate.sh --handlers core/src/main/resources/io/tandem/sim/cost/calibrated-costs.properties \
    --run copilot:5 --run multipaxos:3 --out "$out/calibrated-costs-copilot-pb-rep$k.properties" > "$out/calibrate-pb-rep$k-log.txt" 2>&1
  { date -u; uptime; } > "$out/calibrate-pb-load-end-$k.txt"
done
