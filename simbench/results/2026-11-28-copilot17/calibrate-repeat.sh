#!/usr/bin/env bash
# Two more repetitions of calibrate-handlers.sh (same command), to see the spread of the handler medians. Run through bench.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="$root/simbench/results/2026-11-28-copilot17"
cd "$root"
for k in 2 3; do
  { date -u; uptime; } > "$out/calibrate-load-start-$k.txt"
  TANDEM_SKIP_BUILD=1 timeout 120 jmh/run-simcalibrate.sh --handlers core/src/main/resources/io/tandem/sim/cost/calibrated-costs.properties \
    --run copilot:5 --run multipaxos:3 --out "$out/calibrated-costs-copilot-rep$k.properties" > "$out/calibrate-rep$k.log" 2>&1
  { date -u; uptime; } > "$out/calibrate-load-end-$k.txt"
done
