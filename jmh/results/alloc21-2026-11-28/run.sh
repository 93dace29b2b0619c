#!/usr/bin/env bash
# alloc21: the bench call for the peer trials at 64 clients fsync off: the JFR allocation profile of new (base's is
# p0/, an earlier call), then the A/B without JFR interleaved a b b a b a; budget 310 s (trials past it are skipped).
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab64" 310 \
  pnew:tandem-raft:64:64B-nofsync:new:jfra \
  a1:tandem-raft:64:64B-nofsync:base b1:tandem-raft:64:64B-nofsync:new b2:tandem-raft:64:64B-nofsync:new \
  a2:tandem-raft:64:64B-nofsync:base b3:tandem-raft:64:64B-nofsync:new a3:tandem-raft:64:64B-nofsync:base
