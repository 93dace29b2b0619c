#!/usr/bin/env bash
# raft27 part 2 (one bench call): a = main e64badda, b = this branch (the KV server's quiet apply: a follower's execution
# woken once per 4 AppendEntries, ExecutionWake; Raft's engine options, unset); tandem-raft 64 B fsync off, 64 clients,
# --warmup 10 --max-warmup 30 --measure 8, --profile-window. Order a b b a a b; then this branch with
# engine-options max-inflight-messages=2 and =4 (the default is 32: the b trials).
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/quiet" 430 \
  a64-1:tandem-raft:64:64B-nofsync:base b64-1:tandem-raft:64:64B-nofsync:new \
  b64-2:tandem-raft:64:64B-nofsync:new a64-2:tandem-raft:64:64B-nofsync:base \
  a64-3:tandem-raft:64:64B-nofsync:base b64-3:tandem-raft:64:64B-nofsync:new \
  i2-64-1:tandem-raft:64:64B-nofsync:new:eo=max-inflight-messages=2 \
  i4-64-1:tandem-raft:64:64B-nofsync:new:eo=max-inflight-messages=4
