#!/bin/bash
# client19: issue 25's missing rows, one bench run (<= 5 min). Run from the worktree root under /work/tools/bench.
set -u
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
R=/work/wt-client19
OUT=$R/jmh/results/client19-2026-11-28
J="/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -cp $R/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark --repo $R --runs 1 --slowdown none --warmup 10 --max-warmup 20 --measure 10"
echo "start $(date -u +%T) $(uptime)"
$J --systems tandem-raft,jgroups-raft,sofajraft --configs 64B-nofsync --clients 1 --base-port 27000 --out $OUT/c1-64B > $OUT/c1-64B.txt 2>&1
echo "mid $(date -u +%T) $(uptime)"
$J --systems tandem-raft,jgroups-raft --configs 1024B-nofsync --clients 16 --base-port 28000 --out $OUT/c16-1KiB > $OUT/c16-1KiB.txt 2>&1
echo "end $(date -u +%T) $(uptime)"
