#!/usr/bin/env bash
# issue 21, session 12 (compart8): the 24-replica, 2x4-grid read deployment with unbatched Phase 2 (max-batch-slots=1),
# and fully unbatched (batchers send every command alone: batch-max-commands=1). Two streams.
set -u
cd "$(dirname "$0")/../../.."
export TANDEM_SKIP_BUILD=1 WINDOW="50ms 10ms 50ms"
C=simbench/compartments/whatif-medians-hashkv.properties
R=jmh/results/compart8-2026-11-27
ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024" OUT=simbench-out/compart8/reads-unbatched-slots STEPS=reads-r-p2-grid24-r24-batchers \
  simbench/compartments/run-batched.sh $C 4096 > $R/reads-unbatched-slots.txt 2>&1 &
ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024 batch-max-commands=1" OUT=simbench-out/compart8/reads-unbatched-all STEPS=reads-r-p2-grid24-r24-batchers \
  simbench/compartments/run-batched.sh $C 4096 > $R/reads-unbatched-all.txt 2>&1 &
wait
# then (run by hand after the two above): 12 proxies instead of 2, Phase 2 unbatched
# ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024" OUT=simbench-out/compart8/reads-unbatched-slots STEPS=reads-r-p12-grid24-r24-batchers \
#   simbench/compartments/run-batched.sh $C 4096 > $R/reads-unbatched-slots-p12.txt
