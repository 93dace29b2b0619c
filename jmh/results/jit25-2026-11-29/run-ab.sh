#!/usr/bin/env bash
# jit25 A/B: main 35c59fcb (/tmp/jit25-base) vs jit25 (/work/wt-jit25), tandem-raft, 64 B, fsync off, 30 s warm-up cap,
# interleaved a b b a a b b a at 64 clients, then b a at 16 clients; every trial with the JIT log and the JFR JIT events.
cd "$(dirname "$0")" && ./trials.sh ab 540 \
  a64-1:tandem-raft:64:64B-nofsync:base:jit b64-1:tandem-raft:64:64B-nofsync:new:jit \
  b64-2:tandem-raft:64:64B-nofsync:new:jit a64-2:tandem-raft:64:64B-nofsync:base:jit \
  a64-3:tandem-raft:64:64B-nofsync:base:jit b64-3:tandem-raft:64:64B-nofsync:new:jit \
  b64-4:tandem-raft:64:64B-nofsync:new:jit a64-4:tandem-raft:64:64B-nofsync:base:jit \
  b16-1:tandem-raft:16:64B-nofsync:new:jit a16-1:tandem-raft:16:64B-nofsync:base:jit
