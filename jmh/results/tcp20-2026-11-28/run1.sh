#!/usr/bin/env bash
# tcp20 bench call 1: 64 clients, A B B A (base = main 96fd279b, new = this branch).
D=/work/wt-tcp20/jmh/results/tcp20-2026-11-28
$D/trials.sh $D/c64 a1:64:base b1:64:new b2:64:new a2:64:base
