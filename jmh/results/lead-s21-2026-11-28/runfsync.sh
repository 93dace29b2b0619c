#!/usr/bin/env bash
# fsync on (ext4 images): 64 clients merge Raft, jgroups-raft, merge unreplicated; 16 clients merge Raft and jgroups-raft; 3 interleaved rounds.
d=$(dirname "$0"); C=64B-fsync
for r in 1 2 3; do
  $d/trials.sh $d/c64f m$r:tandem-raft:64:$C:merge j$r:jgroups-raft:64:$C:merge u$r:tandem-unreplicated:64:$C:merge
  $d/trials.sh $d/c16f j$r:jgroups-raft:16:$C:merge m$r:tandem-raft:16:$C:merge
done
