#!/bin/bash
/tmp/hp3/measure.sh /tmp/hp3/m16 16 3
echo "=== $(date +%T) JFR profile of new tandem-raft, 64 clients, load $(cut -d' ' -f1-3 /proc/loadavg)"
/tmp/hp3/profile-run.sh /tmp/hp3/prof2 --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 64 --warmup 15 --measure 10 --slowdown none 2>&1 | grep -E "puts/s|\[[0-9]+/"
echo "=== end $(date +%T)"
