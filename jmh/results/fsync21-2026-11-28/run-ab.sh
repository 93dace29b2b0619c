#!/usr/bin/env bash
# fsync21 call 2: the A/B, fsync on, 64 B: base (main c7c59051) and new (this branch) at 64 and 16 clients, A B B A per
# client count, interleaved, one jgroups-raft trial at each count; then the new tree's JFR profile at 64 clients.
d=$(cd "$(dirname "$0")" && pwd); C=64B-fsync
$d/trials.sh $d/ab 480 \
  a64-1:tandem-raft:64:$C:base b64-1:tandem-raft:64:$C:new a16-1:tandem-raft:16:$C:base b16-1:tandem-raft:16:$C:new \
  j64:jgroups-raft:64:$C:base \
  b64-2:tandem-raft:64:$C:new a64-2:tandem-raft:64:$C:base b16-2:tandem-raft:16:$C:new a16-2:tandem-raft:16:$C:base \
  j16:jgroups-raft:16:$C:base \
  n64:tandem-raft:64:$C:new:jfr
