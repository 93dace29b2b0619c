#!/usr/bin/env bash
# 64 clients fsync off, the borderline cell: rounds 4-7 of tandem-raft (main) and jgroups-raft, alternating order.
d=$(dirname "$0"); C=64B-nofsync
"$d"/trials.sh $d/c64 j4:jgroups-raft:64:$C:main r4:tandem-raft:64:$C:main
"$d"/trials.sh $d/c64 r5:tandem-raft:64:$C:main j5:jgroups-raft:64:$C:main
"$d"/trials.sh $d/c64 j6:jgroups-raft:64:$C:main r6:tandem-raft:64:$C:main
"$d"/trials.sh $d/c64 r7:tandem-raft:64:$C:main j7:jgroups-raft:64:$C:main
