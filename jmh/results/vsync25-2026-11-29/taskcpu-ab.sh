#!/bin/bash
# vsync25: per-task CPU (taskcpu.sh) of main (A) and the branch (B), 8 KiB then 1 KiB, 2 members, order A B B A.
d=/work/wt-vsync25/jmh/results/vsync25-2026-11-29
A=/tmp/vsync25-base/jmh/target/benchmarks.jar
B=/work/wt-vsync25/jmh/target/benchmarks.jar
$d/taskcpu.sh $A A 8192 2
$d/taskcpu.sh $B B 8192 2
$d/taskcpu.sh $B B 1024 2
$d/taskcpu.sh $A A 1024 2
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
