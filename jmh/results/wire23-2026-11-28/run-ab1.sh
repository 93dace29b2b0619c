#!/usr/bin/env bash
# wire23 A/B 1: main 020b458c (base) against this branch (w22 = wire22's shared bodies + sentAgain + wire23's teardown
# fix, the peer jar copied aside), tandem-raft 64 B fsync off, 16 and 64 clients, A B B A per client count; budget 345 s.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab1" 345 \
  a16-1:tandem-raft:16:64B-nofsync:base b16-1:tandem-raft:16:64B-nofsync:w22 \
  a64-1:tandem-raft:64:64B-nofsync:base b64-1:tandem-raft:64:64B-nofsync:w22 \
  b64-2:tandem-raft:64:64B-nofsync:w22 a64-2:tandem-raft:64:64B-nofsync:base \
  b16-2:tandem-raft:16:64B-nofsync:w22 a16-2:tandem-raft:16:64B-nofsync:base
