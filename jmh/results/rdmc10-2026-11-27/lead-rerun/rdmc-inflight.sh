#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
j=0
for inf in 4 16 64 64 16 4; do
  echo "# inflight $inf $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp /tmp/rdmc10-B.jar io.tandem.bench.vsync.LargeMessageBenchmark \
    --sizes 2,3,5 --block 1048576 --warmup 0.7 --measure 1.5 --runs 1 --inflight $inf --payloads 65536,1048576 --raw false --base-port $((24000 + 90 * j)) 2>&1 | grep -v "INFO\|WARN\|^\s*at \|^run,"
  j=$((j+1))
done
