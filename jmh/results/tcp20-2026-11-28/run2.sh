#!/usr/bin/env bash
# tcp20 bench call 2: 16 clients, A B B A, then the 8 KiB streaming points A B B A.
D=/work/wt-tcp20/jmh/results/tcp20-2026-11-28
$D/trials.sh $D/c16 a1:16:base b1:16:new b2:16:new a2:16:base
$D/stream.sh $D > $D/stream.txt 2>&1
