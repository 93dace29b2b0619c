#!/usr/bin/env bash
# Bench run 1 (perfsim13): the storage thread's CPU and voluntary switches per sync on this machine (CostCalibration
# --sync-cpu), then the 64-client validation points, real (with the per-thread window profile) and the default table's
# model in the same invocation. Ports 26000-26999.
set -u
cd "$(dirname "$0")/../../../.."
R=simbench/results/2026-11-28-perfsim13
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
echo "start $(date -u +%T) $(cat /proc/loadavg)"
$J --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp jmh/target/benchmarks.jar \
  io.tandem.bench.sim.CostCalibration --sync-cpu /var/tmp/perfsim13-sync --quick 2>&1 | grep -v '^WARNING' | tee $R/run1-sync-cpu.log
echo "after sync-cpu $(date -u +%T) $(cat /proc/loadavg)"
TANDEM_PEERBENCH_PORT=26000 TANDEM_PEERBENCH_WORK=/var/tmp/perfsim13-peerbench TANDEM_SKIP_BUILD=1 \
  jmh/run-simvalidate.sh --clients 64 --disk none --warmup 10 --measure 8 --profile-window --out $R/run1-64
echo "end $(date -u +%T) $(cat /proc/loadavg)"
