#!/usr/bin/env bash
# raft20 bench call B: 64 clients fsync off, A B B A; a second 16-client pair in the other order (B A: call A's
# 16-client pairs both came out with new below base); then the JMH rounds (base, new).
d=$(cd "$(dirname "$0")" && pwd)
$d/trials.sh $d/ab64 230 a1:tandem-raft:64:64B-nofsync:base b1:tandem-raft:64:64B-nofsync:new b2:tandem-raft:64:64B-nofsync:new a2:tandem-raft:64:64B-nofsync:base \
  b3:tandem-raft:16:64B-nofsync:new a3:tandem-raft:16:64B-nofsync:base
timeout 45 $d/jmh.sh
