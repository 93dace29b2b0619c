#!/usr/bin/env bash
# issue 21, session 12 (compart8): read scaling at 90 % reads with more replicas (each with a batcher), hash-map KV
# table, 4096 clients, seed 1. Usage: run-reads.sh grid-r10 grid-r16 grid-r24 grid24-r24 (r-p2-STEP-batchers.conf), one after the other.
set -u
cd "$(dirname "$0")/../../.."
export TANDEM_SKIP_BUILD=1 WINDOW="${WINDOW:-50ms 10ms 50ms}" OUT=simbench-out/compart8/reads
for r in "$@"; do # grid-r24 or grid24-r24
  echo "start $r $(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
  STEPS="reads-r-p2-$r-batchers" simbench/compartments/run-batched.sh simbench/compartments/whatif-medians-hashkv.properties "${CLIENTS:-4096}"
  echo "end $r $(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
done
