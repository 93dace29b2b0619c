#!/usr/bin/env bash
# KvPathCalibration (the KV server's and client's CPU per put and per wake-up of each thread group, fsync on, in /var/tmp)
# over the fresh quiet table; ports 22900-22901. Through bench.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
echo "start $(date -u +%T) $(cat /proc/loadavg)"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -Dtandem.bench.dir=/var/tmp \
  -cp "$here/../../../jmh/target/benchmarks.jar" io.tandem.bench.sim.KvPathCalibration --base "$here/sim-costs-s15-quiet.properties" \
  --out "$here/sim-costs-s15-kvpath.properties" --port 22900 2>&1 | grep -v '^WARNING' | grep -v ' INFO '
echo "end $(date -u +%T) $(cat /proc/loadavg)"
