#!/bin/bash
d=/work/wt-vsync25/jmh/results/vsync25-2026-11-29
J=/work/wt-vsync25/jmh/target/benchmarks.jar
$d/taskcpu.sh $J A 8192 2
$d/taskcpu.sh $J A 1024 2
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
