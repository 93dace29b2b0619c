#!/bin/bash
# vsync20 seeds: the tandem.jar CLI built in this worktree at main 96fd279b, with this branch's final core classes ahead
# (/tmp/vsync20/B/core, a copy of core/target/classes at 892994cb; the branch's protocols main sources equal main's).
# The two simulations run side by side, each nice'd.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=/tmp/vsync20/B/core:/work/wt-vsync20/kvstore/target/tandem.jar
out=/work/wt-vsync20/jmh/results/vsync20-2026-11-28
{ nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --seeds 300 > $out/sim-vsync-300.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-300.txt; } &
{ nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --shards 2 --seeds 100 > $out/sim-vsync-shards2-100.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-shards2-100.txt; } &
wait
