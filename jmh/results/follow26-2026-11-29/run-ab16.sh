#!/usr/bin/env bash
# follow26: more 16-client trials after run-ab.sh (same trees and settings), a b b (a fourth is skipped by the budget).
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/ab" 180 \
  a16-3:tandem-raft:16:64B-nofsync:base b16-3:tandem-raft:16:64B-nofsync:new \
  b16-4:tandem-raft:16:64B-nofsync:new a16-4:tandem-raft:16:64B-nofsync:base
