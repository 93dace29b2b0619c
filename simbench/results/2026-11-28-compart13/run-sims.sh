#!/usr/bin/env bash
# compart13: the 90 %-read pair (compart12's run-reads.sh: classic 512 clients and r-p2-grid24-r24-batchers 4,096,
# window 50/10/50 ms, default batched config) and the writes pair (compart11's run-model.sh: classic and
# a4-p10-grid24-r4-b3-u2, unbatched, 30/5/30 ms), seeds 1-3, all on one table. Simulator runs (model output; not
# through bench), 3 at a time. Usage: run-sims.sh TABLE TAG > model-TAG.txt
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
t=$1; tag=$2
r=simbench/results/2026-11-28-compart12/run-reads.sh; w=simbench/results/2026-11-27-compart11/run-model.sh
{
  for s in 1 2 3; do
    echo "$r $t $tag-reads $s"
    echo "env STEP=classic $r $t $tag-reads $s"
  done
  for s in 1 2 3; do
    echo "$w $t $tag-writes a4-p10-grid24-r4-b3-u2 $s"
    echo "$w $t $tag-writes classic $s"
  done
} | xargs -P "${PAR:-3}" -I{} bash -c '{}'
