#!/usr/bin/env bash
# wire23 A/B 2: the branch (w22) against the branch with NodeRuntime handing committed entries to execution before the
# turn's timers (new), tandem-raft 64 B fsync off, 64 clients A B B A, then 16 clients A B B A while the budget lasts (300 s).
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab2" 300 \
  a64-1:tandem-raft:64:64B-nofsync:w22 b64-1:tandem-raft:64:64B-nofsync:new \
  b64-2:tandem-raft:64:64B-nofsync:new a64-2:tandem-raft:64:64B-nofsync:w22 \
  a16-1:tandem-raft:16:64B-nofsync:w22 b16-1:tandem-raft:16:64B-nofsync:new \
  b16-2:tandem-raft:16:64B-nofsync:new a16-2:tandem-raft:16:64B-nofsync:w22
