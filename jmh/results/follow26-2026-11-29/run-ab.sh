#!/usr/bin/env bash
# follow26 A/B (one bench call): base = main b3ef2d8b (/tmp/follow26-base), new = this branch (the adaptive back-off of
# the loop's NO_FSYNC rounds), tandem-raft 64 B fsync off, --warmup 10 --max-warmup 30 --measure 8, --profile-window.
# 64 clients: a b b a a b; 16 clients: b a a b.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab" 560 \
  a64-1:tandem-raft:64:64B-nofsync:base b64-1:tandem-raft:64:64B-nofsync:new \
  b64-2:tandem-raft:64:64B-nofsync:new a64-2:tandem-raft:64:64B-nofsync:base \
  a64-3:tandem-raft:64:64B-nofsync:base b64-3:tandem-raft:64:64B-nofsync:new \
  b16-1:tandem-raft:16:64B-nofsync:new a16-1:tandem-raft:16:64B-nofsync:base \
  a16-2:tandem-raft:16:64B-nofsync:base b16-2:tandem-raft:16:64B-nofsync:new
