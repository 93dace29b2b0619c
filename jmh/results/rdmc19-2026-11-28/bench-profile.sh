#!/bin/bash
# rdmc19 profile: this branch (/tmp/rdmc19/B.jar), the group n = 3 at 64 KiB (--inflight 64), one JVM with JFR's
# execution samples (profile settings) over the whole run (2 s warm-up + 8 s measured); raw one stream first in the
# same JVM (its samples fall in the first seconds). Ports 18000-18999. Through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
    -XX:StartFlightRecording=filename=/tmp/rdmc19/n3-64k.jfr,settings=profile,delay=3s -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
    -cp /tmp/rdmc19/B.jar io.tandem.bench.vsync.LargeMessageBenchmark \
    --block 1048576 --warmup 3 --measure 8 --runs 1 --sizes 3 --payloads 65536 --inflight 64 --raw false --base-port 18000 2>&1 \
  | grep -v "INFO\|WARN\|^\s*at \|OpenJDK\|Java HotSpot"
echo "# load at end: $(uptime)"
