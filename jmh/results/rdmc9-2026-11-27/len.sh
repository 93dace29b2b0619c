#!/bin/bash
# Run 4: bench-ab.sh once more with both jars' benchmark receiver fixed (msg.length(), no payload copy).
cd /work/wt-rdmc9/jmh/results/rdmc9-2026-11-27
SUFFIX=-len ./bench-ab.sh > bench-len-run1.txt 2>&1
