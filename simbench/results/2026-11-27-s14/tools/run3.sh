#!/usr/bin/env bash
# Session 14 (perfsim9): the storage thread's CPU per sync against the sync's wall time and the batch, and streaming
# (the storage thread never parks), through the real NodeStorage with fsync; run through bench (~25 s).
cd /work/wt-perfsim9
R=/work/wt-perfsim9/simbench/results/2026-11-27-s14
echo "start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >"$R/run3.conditions"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx512m -cp /tmp/perfsim9/benchmarks-run3.jar \
  io.tandem.bench.sim.CostCalibration --sync-cpu /var/tmp/perfsim9-jmh >"$R/sync-cpu.log" 2>&1
echo "end $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >>"$R/run3.conditions"
