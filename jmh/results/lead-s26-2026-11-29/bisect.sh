#!/usr/bin/env bash
# Lead, session 26: the merge read below main at 64 clients in quiet.sh (57.5k against 77.6k); more rounds of main (r)
# and the merge (m), and each branch alone (f: follow26, v: vsync26), 64 clients, fsync off, default warm-up.
d=$(cd "$(dirname "$0")" && pwd)
T="$d/trials.sh"; c=64B-nofsync
"$T" $d/b64 m1:tandem-raft:64:$c:merge r1:tandem-raft:64:$c:main f1:tandem-raft:64:$c:follow v1:tandem-raft:64:$c:vsync
"$T" $d/b64 r2:tandem-raft:64:$c:main f2:tandem-raft:64:$c:follow v2:tandem-raft:64:$c:vsync m2:tandem-raft:64:$c:merge
"$T" $d/b64 f3:tandem-raft:64:$c:follow m3:tandem-raft:64:$c:merge r3:tandem-raft:64:$c:main
