#!/bin/bash
# vsync19b seeds: main 77c51415's tandem.jar CLI (built in this worktree before the change) with this branch's protocols classes ahead.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=/tmp/vsync19b/B/protocols:/tmp/vsync19b/A-tandem.jar
out=/work/wt-vsync19b/jmh/results/vsync19b-2026-11-28
nice -n 10 java -cp $CP io.tandem.cli.TandemCli sim --protocol virtual-synchrony --seeds 200 > $out/sim-vsync-200.txt 2>&1; echo "rc=$?" >> $out/sim-vsync-200.txt
