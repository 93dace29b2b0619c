#!/bin/bash
# vsync13 seeds: main 52b6897's tandem.jar CLI with this branch's core/protocols/transport-tcp classes ahead of it.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
b=/tmp/vsync13/B; CP=$b/core:$b/transport-tcp:$b/protocols:/work/main/kvstore/target/tandem.jar
out=/work/wt-vsync13/jmh/results/vsync13-2026-11-28
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --seeds 500 > $out/sim-vsync-500.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-500.txt
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --shards 2 --seeds 100 > $out/sim-vsync-shards2-100.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-shards2-100.txt
