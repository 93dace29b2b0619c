#!/usr/bin/env bash
# alloc21: the one bench call for the peer trials: JFR allocation profiles of base and new at 64 clients fsync off,
# then the A/B (no JFR) interleaved base new new base new base, budget 420 s for the whole call.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab64" 420 \
  pbase:tandem-raft:64:64B-nofsync:base:jfra pnew:tandem-raft:64:64B-nofsync:new:jfra \
  a1:tandem-raft:64:64B-nofsync:base b1:tandem-raft:64:64B-nofsync:new b2:tandem-raft:64:64B-nofsync:new \
  a2:tandem-raft:64:64B-nofsync:base b3:tandem-raft:64:64B-nofsync:new a3:tandem-raft:64:64B-nofsync:base
