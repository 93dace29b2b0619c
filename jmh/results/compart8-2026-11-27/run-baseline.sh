#!/usr/bin/env bash
# issue 21, session 12 (compart8): the paper's like-for-like baseline, classic MultiPaxos unbatched (one command per
# Phase 2a / Chosen message: max-batch-slots=1) with the hash-map KV table, write-only and at 90 % reads.
# Deterministic (seed 1); same window as compart7's run-model.sh. Two streams (2 cores).
set -u
cd "$(dirname "$0")/../../.."
C=simbench/compartments/whatif-medians-hashkv.properties
O=simbench-out/compart8
R=jmh/results/compart8-2026-11-27
export TANDEM_SKIP_BUILD=1 WINDOW="50ms 10ms 50ms"
a() {
  ENGINE_OPTIONS="max-batch-slots=1" OUT=$O/unbatched STEPS="classic reads-classic" simbench/compartments/run-batched.sh $C 512
  ENGINE_OPTIONS="max-batch-slots=1" OUT=$O/unbatched-c1024 STEPS="classic" simbench/compartments/run-batched.sh $C 1024
}
b() {
  ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024" OUT=$O/unbatched-if1024 STEPS="classic reads-classic" simbench/compartments/run-batched.sh $C 512
}
a > $R/baseline-a.txt 2>&1 &
b > $R/baseline-b.txt 2>&1 &
wait
# second part (the first invocation's c1024 step was lost to an edit of run-batched.sh while it ran): 1024 clients
# ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024" OUT=simbench-out/compart8/unbatched-if1024-c1024 STEPS=classic simbench/compartments/run-batched.sh $C 1024
