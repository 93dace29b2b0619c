#!/usr/bin/env bash
# Copilot's message handlers measured the way the full calibration measures the other engines' (CostCalibration --handlers),
# MultiPaxos 3 nodes as the control run; written onto the default table. Run through /work/tools/bench.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="$root/simbench/results/2026-11-28-copilot17"
cd "$root"
{ date -u; uptime; } > "$out/calibrate-load-start.txt"
TANDEM_SKIP_BUILD=1 timeout 290 jmh/run-simcalibrate.sh --handlers core/src/main/resources/io/tandem/sim/cost/calibrated-costs.properties \
  --run copilot:5 --run multipaxos:3 --out "$out/calibrated-costs-copilot.properties" > "$out/calibrate.log" 2>&1
{ date -u; uptime; } > "$out/calibrate-load-end.txt"
