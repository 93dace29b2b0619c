#!/usr/bin/env bash
# tcp20 bench call 3 (after the 8 KiB frame limit of the direct path): 16 clients A B B A, 64 clients B A, streaming A B.
D=/work/wt-tcp20/jmh/results/tcp20-2026-11-28
$D/trials.sh $D/c16r3 a1:16:base b1:16:new b2:16:new a2:16:base
$D/trials.sh $D/c64r3 b1:64:new a1:64:base
$D/stream2.sh $D > $D/stream2.txt 2>&1
