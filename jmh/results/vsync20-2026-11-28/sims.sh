#!/bin/bash
# vsync20 seeds: the tandem.jar CLI built in this worktree at main 96fd279b, with this branch's core classes ahead.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=/work/wt-vsync20/core/target/classes:/work/wt-vsync20/protocols/target/classes:/work/wt-vsync20/kvstore/target/tandem.jar
out=/work/wt-vsync20/jmh/results/vsync20-2026-11-28
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --seeds 300 > $out/sim-vsync-300.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-300.txt
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --shards 2 --seeds 100 > $out/sim-vsync-shards2-100.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-shards2-100.txt
