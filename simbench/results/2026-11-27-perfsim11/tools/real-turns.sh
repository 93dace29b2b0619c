#!/usr/bin/env bash
# Real runs at CLIENTS closed-loop clients (default 64) for the three systems with this branch's jars (main 7dbed94 plus
# perfsim11's window profile: per-thread run time and voluntary context switches over the measured window), 64 B values,
# fsync on, 10 s warm-up + 8 s measured, one run per point; ports 22000+, work dir of its own. Through bench.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
c=${1:-64}
out="$here/real-turns-$c"
echo "start $(date -u +%T) $(cat /proc/loadavg)"
TANDEM_SKIP_BUILD=1 TANDEM_PEERBENCH_PORT=22000 TANDEM_PEERBENCH_WORK=/var/tmp/perfsim11-peerbench \
  "$here/../../../jmh/run-simvalidate.sh" --real-only --disk none --warmup 10 --measure 8 --profile-window --clients "$c" \
  --costs "$here/sim-costs-s15-quiet.properties" --out "$out"
echo "end $(date -u +%T) $(cat /proc/loadavg)"
rm -rf /var/tmp/perfsim11-peerbench
