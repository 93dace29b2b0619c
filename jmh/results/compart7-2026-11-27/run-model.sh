#!/usr/bin/env bash
# issue 21, session 12: the model ablation with the hash-map KV apply cost (whatif-medians-hashkv.properties).
# Two streams in parallel (the machine has 2 cores); deterministic (seed 1), wall time only depends on load.
set -u
cd "$(dirname "$0")/../.."
C=simbench/compartments/whatif-medians-hashkv.properties
O=simbench-out/hashkv
export TANDEM_SKIP_BUILD=1 WINDOW="50ms 10ms 50ms" OUT=$O
a() {
  STEPS="classic reads-classic" simbench/compartments/run-batched.sh $C 512
  STEPS="d-g23-b2-u2 p2-r2 b-p2-grid-r4" simbench/compartments/run-batched.sh $C 4096
}
b() {
  STEPS="reads-p2-grid-r6 d-b2-u2 b-p2-grid-r2 reads-p2-grid-r4" simbench/compartments/run-batched.sh $C 4096
}
a > results/compart7/model-a.txt 2>&1 &
b > results/compart7/model-b.txt 2>&1 &
wait
