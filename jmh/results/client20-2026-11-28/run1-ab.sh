#!/usr/bin/env bash
# Run 1 (one bench call): ReplyHandOffBenchmark, then the A/B of the reply path, tandem-raft, 64 B, fsync off, A B B A.
d=$(cd "$(dirname "$0")" && pwd); C=64B-nofsync
mkdir -p $d/jmh
echo "jmh start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $d/jmh/load.txt
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar /work/wt-client20/jmh/target/benchmarks.jar 'ReplyHandOffBenchmark.replyQueue' \
  -p replies=16,64 -f 1 -wi 2 -i 3 -w 1s -r 1s > $d/jmh/reply-handoff.txt 2>&1
echo "jmh end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $d/jmh/load.txt
$d/trials.sh $d/ab 8 15 6 \
  a1:tandem-raft:64:$C:base b1:tandem-raft:64:$C:new b2:tandem-raft:64:$C:new a2:tandem-raft:64:$C:base \
  c1:tandem-raft:16:$C:base d1:tandem-raft:16:$C:new d2:tandem-raft:16:$C:new c2:tandem-raft:16:$C:base
