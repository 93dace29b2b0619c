#!/bin/bash
# vsync15 seeds: main 4c321679's tandem.jar CLI (built in this worktree before the change) with this branch's core and
# protocols classes ahead of it: B2, the final code (sims-b1/ holds the same seeds on B, the four loop cuts only).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=/tmp/vsync15/B2/core:/tmp/vsync15/B2/protocols:/tmp/vsync15/A-tandem.jar
out=/work/wt-vsync15/jmh/results/vsync15-2026-11-28
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --seeds 500 > $out/sim-vsync-500.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-500.txt
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --shards 2 --seeds 100 > $out/sim-vsync-shards2-100.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-shards2-100.txt
