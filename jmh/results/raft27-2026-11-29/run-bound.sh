#!/usr/bin/env bash
# raft27 part 1 (one bench call): a = main e64badda, b = main + vsync26's DeadlineBound; tandem-raft 64 B fsync off,
# 64 clients, --warmup 10 --max-warmup 30 --measure 8, --profile-window. Order a b b a a b.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/bound" 330 \
  a64-1:tandem-raft:64:64B-nofsync:base b64-1:tandem-raft:64:64B-nofsync:bound \
  b64-2:tandem-raft:64:64B-nofsync:bound a64-2:tandem-raft:64:64B-nofsync:base \
  a64-3:tandem-raft:64:64B-nofsync:base b64-3:tandem-raft:64:64B-nofsync:bound
