#!/usr/bin/env bash
# The 9-point real side (issue 18 validation) with per-thread CPU over each measured window; run through bench.
set -euo pipefail
cd /work/wt-perfsim9
out=/work/wt-perfsim9/simbench/results/2026-11-27-s14/real9
echo "start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >"$out.conditions"
TANDEM_SKIP_BUILD=1 TANDEM_PEERBENCH_WORK=/var/tmp/perfsim9-peerbench TANDEM_PEERBENCH_PORT=27000 \
  jmh/run-simvalidate.sh --real-only --disk none --warmup 10 --measure 8 --profile-window --out "$out"
echo "end $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >>"$out.conditions"
