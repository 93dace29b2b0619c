#!/bin/bash
# rdmc12: 16 MiB at n = 4, 5 with blocks of 256 KiB, 1 MiB, 4 MiB (B = this branch), one JVM each, in the order
# 1M 256K 4M 1M; 2.5 s warm-up, 2 s measured, --inflight 4. Through bench. Ports 27000-27999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
j=0
for blk in 1048576 262144 4194304 1048576; do
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp /tmp/rdmc12/B.jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block $blk --warmup 2.5 --measure 2 --runs 1 --sizes 4,5 --payloads 16777216 --raw false --inflight 4 --base-port $((27500 + 100 * j)) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^#\|^run," | sed "s/^1,/block-$blk,/"
  j=$((j + 1))
done
echo "# load at end: $(uptime)"
