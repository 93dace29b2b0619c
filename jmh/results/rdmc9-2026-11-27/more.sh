#!/bin/bash
# Runs 2 and 3 of bench-ab.sh (reverse, forward), then a JFR CPU profile of B at n = 3, 4 MiB (rdmc8's profile point).
cd /work/wt-rdmc9/jmh/results/rdmc9-2026-11-27
./bench-ab.sh reverse > bench-run2.txt 2>&1
./bench-ab.sh > bench-run3.txt 2>&1
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)" > profile-run.txt
java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -XX:StartFlightRecording=filename=/tmp/rdmc9-profile-n3-4m.jfr,settings=profile -cp /tmp/rdmc9-B.jar \
  io.tandem.bench.vsync.LargeMessageBenchmark --sizes 3 --payloads 4194304 --block 1048576 --warmup 1 --measure 6 --runs 1 --inflight 4 --raw false --base-port 24900 2>&1 \
  | grep -v "INFO\|WARN\|^\s*at \|^run," >> profile-run.txt
echo "# load at end: $(uptime)" >> profile-run.txt
