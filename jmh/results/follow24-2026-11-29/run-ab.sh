#!/usr/bin/env bash
# follow24 A/B: base = main d4813d3d (/tmp/follow24-base), new = this branch (/work/wt-follow24): tandem-raft 64 B fsync off,
# A B B A B A at 64 clients, B A A B at 16 clients, then one new trial at 64 clients with JFR (jfr: not in the medians,
# only to see which frames are still interpreted); budget 540 s.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab" 540 \
  a64-1:tandem-raft:64:64B-nofsync:base b64-1:tandem-raft:64:64B-nofsync:new \
  b64-2:tandem-raft:64:64B-nofsync:new a64-2:tandem-raft:64:64B-nofsync:base \
  b64-3:tandem-raft:64:64B-nofsync:new a64-3:tandem-raft:64:64B-nofsync:base \
  b16-1:tandem-raft:16:64B-nofsync:new a16-1:tandem-raft:16:64B-nofsync:base \
  a16-2:tandem-raft:16:64B-nofsync:base b16-2:tandem-raft:16:64B-nofsync:new \
  j64:tandem-raft:64:64B-nofsync:new:jfr
