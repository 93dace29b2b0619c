#!/bin/bash
# Durable vs ordered message rate on loopback (issue 23), fsync bound measured in the same run on the worktree's ext4.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-shards7/results/durable-rate
data=/work/wt-shards7/results/durable-rate/data
rm -rf $data
echo "uptime at start: $(uptime)"
java -Xmx2g -cp /tmp/shards7-benchmarks.jar io.tandem.bench.vsync.DurableRateBenchmark --dir $data/n3 --base-port 21000 --n 3 --payload 256 \
    --modes ordered,durable,durable,ordered,ordered,durable --warmup 3 --measure 8 --fsync-seconds 5 2>&1 | grep -v "^\s*at \| WARN \| INFO "
java -Xmx2g -cp /tmp/shards7-benchmarks.jar io.tandem.bench.vsync.DurableRateBenchmark --dir $data/n5 --base-port 21200 --n 5 --payload 256 \
    --modes ordered,durable,durable,ordered --warmup 3 --measure 8 --fsync-seconds 5 2>&1 | grep -v "^\s*at \| WARN \| INFO "
echo "uptime at end: $(uptime)"
rm -rf $data
