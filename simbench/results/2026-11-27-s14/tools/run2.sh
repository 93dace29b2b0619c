#!/usr/bin/env bash
# Session 14 (perfsim9), one bench invocation: the 64-client real points of unreplicated and Raft with the CPU of every
# thread over the measured window, the transport's per-message cost against messages per syscall, and the log sync's
# wall time against the batch it carries.
set -uo pipefail
cd /work/wt-perfsim9
R=/work/wt-perfsim9/simbench/results/2026-11-27-s14
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
echo "start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >"$R/run2.conditions"
TANDEM_SKIP_BUILD=1 TANDEM_PEERBENCH_WORK=/var/tmp/perfsim9-peerbench TANDEM_PEERBENCH_PORT=27000 \
  jmh/run-simvalidate.sh --real-only --disk none --warmup 10 --measure 8 --profile-window --clients 64 --systems "tandem-unreplicated tandem-raft" --out "$R/real64"
echo "real done $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >>"$R/run2.conditions"
$J --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp jmh/target/benchmarks.jar io.tandem.bench.sim.CostCalibration \
  --transport-burst core/src/main/resources/io/tandem/sim/cost/calibrated-costs.properties --repeat 3 --out "$R/sim-costs-s14-burst.properties" >"$R/burst.log" 2>&1
echo "burst done $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >>"$R/run2.conditions"
mkdir -p /var/tmp/perfsim9-jmh
$J -jar jmh/target/benchmarks.jar 'NodeStorageAppendBenchmark.appendBatchAndAwaitDurableLatency$' -p recordBytes=128 -p batchSize=1,8,40 -p flush=FSYNC \
  -f 1 -wi 2 -i 3 -w 1s -r 1s -jvmArgsAppend -Dtandem.bench.dir=/var/tmp/perfsim9-jmh -rf csv -rff "$R/sync-by-batch.csv" >"$R/sync-by-batch.log" 2>&1
echo "end $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >>"$R/run2.conditions"
