#!/usr/bin/env bash
# Bench run 2 (perfsim13): the storage's wall time per record again (CostCalibration --sync-cpu, a second measurement of
# disk.record.ns), then the validation at 64 clients with the table that carries the key: real (with the per-thread window
# profile and the disk probed during each run) and the model in the same invocation. Ports 26000-26999.
set -u
cd "$(dirname "$0")/../../../.."
R=simbench/results/2026-11-28-perfsim13
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
echo "start $(date -u +%T) $(cat /proc/loadavg)"
$J --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp jmh/target/benchmarks.jar \
  io.tandem.bench.sim.CostCalibration --sync-cpu /var/tmp/perfsim13-sync --quick 2>&1 | grep -v '^WARNING\|INFO' | tee $R/run2-sync-cpu.log
echo "after sync-cpu $(date -u +%T) $(cat /proc/loadavg)"
TANDEM_PEERBENCH_PORT=26000 TANDEM_PEERBENCH_WORK=/var/tmp/perfsim13-peerbench TANDEM_SKIP_BUILD=1 \
  jmh/run-simvalidate.sh --clients 64 --disk during --warmup 10 --measure 8 --profile-window \
  --costs jmh/results/sim-costs-2026-11-28-perfsim13-record.properties --out $R/run2-64
echo "end $(date -u +%T) $(cat /proc/loadavg)"
