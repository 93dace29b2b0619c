#!/usr/bin/env bash
# raft20 bench call A: 16 clients fsync off, A B B A; then one fsync-on 16-client pair.
d=$(cd "$(dirname "$0")" && pwd)
$d/trials.sh $d/ab16 290 a1:tandem-raft:16:64B-nofsync:base b1:tandem-raft:16:64B-nofsync:new b2:tandem-raft:16:64B-nofsync:new a2:tandem-raft:16:64B-nofsync:base \
  fa:tandem-raft:16:64B-fsync:base fb:tandem-raft:16:64B-fsync:new
