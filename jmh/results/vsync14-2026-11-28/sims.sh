#!/bin/bash
# vsync14 seeds: main 8f2e954's tandem.jar CLI with this branch's core/protocols/transport-tcp classes ahead of it
# (the branch changes no engine, SST or transport code; these check the build the benchmark ran).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
b=/tmp/vsync14/A; CP=$b/core:$b/transport-tcp:$b/protocols:/work/main/kvstore/target/tandem.jar
out=/work/wt-vsync14/jmh/results/vsync14-2026-11-28
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --seeds 500 > $out/sim-vsync-500.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-500.txt
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --shards 2 --seeds 100 > $out/sim-vsync-shards2-100.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-shards2-100.txt
