#!/bin/bash
# vsync19 seeds: main 77c51415's tandem.jar CLI (/tmp/vsync19-base) with this branch's protocols classes ahead (the held rings).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=/tmp/vsync19/B/protocols:/tmp/vsync19-base/kvstore/target/tandem.jar
out=/work/wt-vsync19/jmh/results/vsync19-2026-11-28
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --seeds 300 > $out/sim-vsync-300.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-300.txt
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --shards 2 --seeds 100 > $out/sim-vsync-shards2-100.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-shards2-100.txt
