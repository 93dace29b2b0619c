#!/bin/bash
# Lead, session 17: the peers table on the merged branch, quiet machine (no helpers running), 3 interleaved runs.
cd "$(dirname "$0")/../../.."
OUT=jmh/results/lead-s17-2026-11-28
for c in 64 16; do
  echo "== clients $c, load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%T)"
  TANDEM_SKIP_BUILD=1 jmh/run-peers.sh --systems tandem-raft,tandem-unreplicated,jgroups-raft,tandem-multipaxos \
    --configs 64B-nofsync --slowdown none --runs 3 --clients $c --warmup 10 --measure 8 --base-port 20000 --out $OUT/c$c
  echo "== done clients $c, load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%T)"
done
