#!/bin/bash
# rdmc11: where the CPU of a 64 KiB message goes (B, n = 2, 64 in flight): JFR execution samples for 5 s from t = 5 s.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
    -XX:StartFlightRecording=delay=5s,duration=5s,filename=/tmp/rdmc11-64k.jfr,settings=profile \
    -cp /tmp/rdmc11-B.jar io.tandem.bench.vsync.LargeMessageBenchmark \
    --block 1048576 --warmup 4 --measure 6 --runs 1 --base-port 24000 --sizes 2 --payloads 65536 --raw false --inflight 64 2>&1 | grep -v "INFO\|WARN"
echo "# load at end: $(uptime)"
