#!/usr/bin/env bash
# follow26 profile of main (b3ef2d8b): tandem-raft 64 B fsync off 64 clients, 40 s warm-up cap, JFR CPU samples + JIT log.
cd "$(dirname "$0")" && ./trials.sh p0 80 p64:tandem-raft:64:64B-nofsync:base:jfr,jit,w40
