#!/usr/bin/env bash
# hot24 A/B (one bench call): base = main d4813d3d, new = this branch's peer jar (225aabc7), tandem-raft 64 B fsync off.
# 64 clients: base x3, new x3 interleaved, plus new with -XX:+UseTransparentHugePages on every JVM (thp) x2 as a probe;
# 16 clients: A B B A; last (skipped first if the budget runs out) one jgroups-raft trial without and one with THP.
# Budget 590 s.
d=$(cd "$(dirname "$0")" && pwd)
T=-XX:+UseTransparentHugePages
"$d/trials.sh" "$d/ab" 590 \
  a64-1:tandem-raft:64:64B-nofsync:base b64-1:tandem-raft:64:64B-nofsync:new t64-1:tandem-raft:64:64B-nofsync:new:$T \
  b64-2:tandem-raft:64:64B-nofsync:new a64-2:tandem-raft:64:64B-nofsync:base t64-2:tandem-raft:64:64B-nofsync:new:$T \
  a64-3:tandem-raft:64:64B-nofsync:base b64-3:tandem-raft:64:64B-nofsync:new \
  a16-1:tandem-raft:16:64B-nofsync:base b16-1:tandem-raft:16:64B-nofsync:new \
  b16-2:tandem-raft:16:64B-nofsync:new a16-2:tandem-raft:16:64B-nofsync:base \
  j64-1:jgroups-raft:64:64B-nofsync:base jt64-1:jgroups-raft:64:64B-nofsync:base:$T
