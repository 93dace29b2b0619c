#!/usr/bin/env bash
# The storage thread's CPU per sync by regime (CostCalibration --sync-cpu: batches of 1, 8 and 40 records appended and
# awaited, the thread parking between them; then streaming), in /var/tmp like the calibration's fsync. Through bench.
set -u
echo "start $(date -u +%T) $(uptime)"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp "${JAR:-/work/main/jmh/target/benchmarks.jar}" \
  io.tandem.bench.sim.CostCalibration --sync-cpu /var/tmp/perfsim11-synccpu 2>&1 | grep -v '^WARNING\|INFO'
echo "end $(date -u +%T) $(uptime)"
rm -rf /var/tmp/perfsim11-synccpu
