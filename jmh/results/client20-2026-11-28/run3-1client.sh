#!/usr/bin/env bash
# Run 3 (one bench call, the budget's last minute): 1 client, tandem-raft, this branch against main, new base new
# (run 2's single pair differed 1.6x in p50 with every thread, the unchanged load JVM's too, 1.5-1.8x costlier per put).
d=$(cd "$(dirname "$0")" && pwd); N=64B-nofsync
$d/trials.sh $d/one 6 8 5 x1:tandem-raft:1:$N:new y1:tandem-raft:1:$N:base x2:tandem-raft:1:$N:new
