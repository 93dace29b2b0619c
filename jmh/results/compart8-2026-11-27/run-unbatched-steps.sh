#!/usr/bin/env bash
# issue 21, session 12 (compart8): the paper's unbatched ablation (Fig. 12a) like for like: every step with
# max-batch-slots=1 (one command per Phase 2a / Chosen message) and max-inflight-messages=1024 (as the baseline),
# hash-map KV table, 4096 clients, seed 1, compart7's window.
set -u
cd "$(dirname "$0")/../../.."
export TANDEM_SKIP_BUILD=1 WINDOW="50ms 10ms 50ms" OUT=simbench-out/compart8/unbatched-steps${CLIENTS:+-c$CLIENTS}
ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024" STEPS="${STEPS:-p10-grid-r4 b-p2-grid-r4 p2-r2}" \
  simbench/compartments/run-batched.sh simbench/compartments/whatif-medians-hashkv.properties "${CLIENTS:-4096}"
