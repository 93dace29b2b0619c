#!/usr/bin/env bash
# Lead session 25: where each replica's CPU goes in the measured window (tandem-raft, 64 clients, 64 B, fsync off).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
tree=${TREE:-/work/wt-merge25}; out=$1; clients=${2:-64}; system=${3:-tandem-raft}
java --enable-native-access=ALL-UNNAMED -Xmx512m -cp $tree/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
  --repo $tree --systems $system --runs 1 --configs 64B-nofsync --clients $clients --warmup 10 --max-warmup 45 --measure 8 \
  --slowdown none --base-port 20000 --work-dir /var/tmp/lead25-peerbench --out $out --profile-window $out/profile "${@:4}"
