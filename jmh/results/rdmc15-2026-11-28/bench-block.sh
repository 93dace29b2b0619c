#!/bin/bash
# rdmc15: what the second, few-byte block of a 1 MiB message costs. This branch's jar (/tmp/rdmc15/B.jar, protocol = main):
# 1 MiB payloads, n = 2-5, --inflight 16, blocks of 1 MiB (P: 2 blocks per message, the channel's name prefix making it
# 1 MiB + a few bytes) against blocks of 1 MiB + 64 KiB (Q: one block), order P Q Q P, one JVM each; no raw points.
# 2 s warm-up, 1.5 s measured. Ports 27000-28999. Through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
for x in P Q Q P; do
  if (( $(date +%s) - start > 110 )); then echo "# skipped $x (time)"; continue; fi
  b=1048576; [ $x = Q ] && b=1114112
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp /tmp/rdmc15/B.jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block $b --warmup 2 --measure 1.5 --runs 1 --sizes 2,3,4,5 --payloads 1048576 --inflight 16 --raw false --kinds true \
      --base-port $((27000 + 1000 * (j % 2))) 2>&1 | grep -v "INFO\|WARN\|^\s*at \|OpenJDK\|Java HotSpot\|^run," | sed "s/^1,/$x,/; s/^# /# $x /"
  j=$((j + 1))
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
