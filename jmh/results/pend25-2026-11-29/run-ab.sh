#!/usr/bin/env bash
# pend25 A/B (one bench call): base = main 35c59fcb, new = this branch's peer jar (sources as at the commit named in
# docs/hotpath.md), tandem-raft 64 B fsync off, --warmup 10 --max-warmup 20 --measure 8.
# 64 clients: a b b a a b; 16 clients: b a a b; last (skipped if the budget runs out) new with JFR (the after profile).
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab" 500 \
  a64-1:tandem-raft:64:64B-nofsync:base b64-1:tandem-raft:64:64B-nofsync:new \
  b64-2:tandem-raft:64:64B-nofsync:new a64-2:tandem-raft:64:64B-nofsync:base \
  a64-3:tandem-raft:64:64B-nofsync:base b64-3:tandem-raft:64:64B-nofsync:new \
  b16-1:tandem-raft:16:64B-nofsync:new a16-1:tandem-raft:16:64B-nofsync:base \
  a16-2:tandem-raft:16:64B-nofsync:base b16-2:tandem-raft:16:64B-nofsync:new \
  p1:tandem-raft:64:64B-nofsync:new:jfrall
