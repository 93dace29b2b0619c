#!/usr/bin/env bash
# perfsim7 bench run B (run A was stopped after its 1-client points: ~55 s per point would have run 9.5 min): the real side
# of the validation, fsync on, at 16 clients for the three systems and 64 clients for Raft (10 s + 8 s per point); the
# model's disk and loopback are the ones run A measured 6 minutes earlier (sim-costs-2026-11-27-stalls).
set -u
cd /work/wt-perfsim7
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
R=simbench/results/2026-11-27-perfsim7
echo "start $(date -u +%H:%M:%S) uptime: $(uptime)"
TANDEM_SKIP_BUILD=1 TANDEM_PEERBENCH_PORT=26000 jmh/run-simvalidate.sh --real-only --disk none --warmup 10 --measure 8 --clients 16 \
  --costs jmh/results/sim-costs-2026-11-27-stalls.properties --out $R/validate-fsync-16
TANDEM_SKIP_BUILD=1 TANDEM_PEERBENCH_PORT=26000 jmh/run-simvalidate.sh --real-only --disk none --warmup 10 --measure 8 --clients 64 --systems tandem-raft \
  --costs jmh/results/sim-costs-2026-11-27-stalls.properties --out $R/validate-fsync-64
echo "end $(date -u +%H:%M:%S) uptime: $(uptime)"
