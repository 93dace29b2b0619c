#!/usr/bin/env bash
# Issue 25, lead session 24: what Tandem's replicas still compile after the warm-up (10-17 % of the measured CPU in
# the JIT with a 45 s cap). One tandem-raft trial, 64 clients, 64 B, fsync off, 45 s cap, a JIT log per JVM.
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
$java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/lead24-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
  --repo /work/wt-merge24 --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 64 --warmup 10 --max-warmup 45 \
  --measure 8 --slowdown none --base-port 20000 --work-dir /var/tmp/lead24-peerbench \
  "--jvm-opt=-Xlog:jit+compilation=debug,deoptimization=debug:file=/var/tmp/lead24-jit/jit-%p.log:uptime" --out "$(dirname "$0")/jit" 2>&1 | tail -5
