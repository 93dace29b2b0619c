#!/usr/bin/env bash
# perfsim7 bench run A (through /work/tools/bench): re-measure the disk and loopback latencies with the link stalls and the
# connection window, then the real side of the validation with fsync on at 1/16/64 clients (10 s + 8 s per point).
set -u
cd /work/wt-perfsim7
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
R=simbench/results/2026-11-27-perfsim7
echo "start $(date -u +%H:%M:%S) uptime: $(uptime)"
java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dtandem.bench.dir=/var/tmp -cp jmh/target/benchmarks.jar io.tandem.bench.sim.CostCalibration \
  --latencies jmh/results/sim-costs-2026-11-27-quiet.properties --repeat 2 --out jmh/results/sim-costs-2026-11-27-stalls.properties > $R/calibrate.log 2>&1
echo "calibrated $(date -u +%H:%M:%S) rc=$? uptime: $(uptime)"
TANDEM_SKIP_BUILD=1 TANDEM_PEERBENCH_PORT=26000 jmh/run-simvalidate.sh --real-only --disk none --warmup 10 --measure 8 \
  --costs jmh/results/sim-costs-2026-11-27-stalls.properties --out $R/validate-fsync
echo "end $(date -u +%H:%M:%S) uptime: $(uptime)"
