#!/usr/bin/env bash
# jit25 diagnosis: one trial of main (tandem-raft, 64 clients, 64 B, fsync off, 30 s warm-up cap) with a JIT log and a JFR
# recording of the JIT's events per JVM, the window cut out by --profile-window.
cd "$(dirname "$0")" && ./trials.sh p0 90 p64:tandem-raft:64:64B-nofsync:base:jit
