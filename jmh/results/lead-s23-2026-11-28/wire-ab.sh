#!/usr/bin/env bash
# wire22 (shared bodies, sentAgain) on the merge: main e625d75f (main2) against the merge c5706e94 (merge), tandem-raft,
# 64 B, fsync off, 64 and 16 clients, three rounds with the order rotated.
d=$(cd "$(dirname "$0")" && pwd); o=$d/wire-ab
$d/trials.sh $o m64a:tandem-raft:64:64B-nofsync:main2 n64a:tandem-raft:64:64B-nofsync:merge n16a:tandem-raft:16:64B-nofsync:merge m16a:tandem-raft:16:64B-nofsync:main2
$d/trials.sh $o n64b:tandem-raft:64:64B-nofsync:merge m64b:tandem-raft:64:64B-nofsync:main2 m16b:tandem-raft:16:64B-nofsync:main2 n16b:tandem-raft:16:64B-nofsync:merge
$d/trials.sh $o m64c:tandem-raft:64:64B-nofsync:main2 n64c:tandem-raft:64:64B-nofsync:merge n16c:tandem-raft:16:64B-nofsync:merge m16c:tandem-raft:16:64B-nofsync:main2
