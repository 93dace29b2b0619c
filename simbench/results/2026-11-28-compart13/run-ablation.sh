#!/usr/bin/env bash
# compart13: the 90 %-read pair (run-reads.sh, seeds 1-3) on the batch-timer-only ablation table, and one profiled run
# (tandem.simbench.profile) of the read step, seed 1, on the measured table. Simulator runs, model output.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
d=simbench/results/2026-11-28-compart13; r=simbench/results/2026-11-28-compart12/run-reads.sh
{
  for s in 1 2 3; do echo "$r $d/ablation-w1a-batchtimer-only.properties bt-reads $s"; echo "env STEP=classic $r $d/ablation-w1a-batchtimer-only.properties bt-reads $s"; done
  echo "env JAVA_TOOL_OPTIONS=-Dtandem.simbench.profile=$d/profile-rt-s1.csv $r simbench/compartments/whatif-medians-hashkv-proposeloop-announce-readtimers.properties rt-profile 1"
} | xargs -P 3 -I{} bash -c '{}'
