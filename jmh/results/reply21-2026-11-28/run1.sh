#!/usr/bin/env bash
# reply21 A/B: tandem-raft 64B-nofsync at 16, 1 and 64 clients, base (main) and new (reply21) interleaved A B / B A.
d=/work/wt-reply21/jmh/results/reply21-2026-11-28
exec /work/tools/bench "$d/trials.sh" "$d/ab" 570 \
  c16-a1:tandem-raft:16:64B-nofsync:base c16-b1:tandem-raft:16:64B-nofsync:new \
  c1-a1:tandem-raft:1:64B-nofsync:base c1-b1:tandem-raft:1:64B-nofsync:new \
  c64-a1:tandem-raft:64:64B-nofsync:base c64-b1:tandem-raft:64:64B-nofsync:new \
  c64-b2:tandem-raft:64:64B-nofsync:new c64-a2:tandem-raft:64:64B-nofsync:base \
  c1-b2:tandem-raft:1:64B-nofsync:new c1-a2:tandem-raft:1:64B-nofsync:base \
  c16-b2:tandem-raft:16:64B-nofsync:new c16-a2:tandem-raft:16:64B-nofsync:base
