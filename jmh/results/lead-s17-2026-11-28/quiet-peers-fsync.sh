#!/bin/bash
# Lead, session 17: fsync on, 64 clients, the merged main, quiet machine (no helpers running), 3 interleaved runs.
cd "$(dirname "$0")/../../.."
OUT=jmh/results/lead-s17-2026-11-28
echo "== clients 64 fsync, load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%T)"
TANDEM_SKIP_BUILD=1 jmh/run-peers.sh --systems tandem-raft,tandem-unreplicated,jgroups-raft \
  --configs 64B-fsync --slowdown none --runs 3 --clients 64 --warmup 10 --measure 8 --base-port 20000 --out $OUT/c64-fsync
echo "== done, load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%T)"
