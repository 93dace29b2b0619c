#!/bin/bash
# Seeds for this branch: the CLI of main daca97b's tandem.jar (/tmp/vsync12/base-tandem.jar) with this branch's
# core/protocols classes (commit 7136ff4, snapshot /tmp/vsync12/b-classes/B) ahead of it.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
C=/tmp/vsync12/b-classes/B
CP=$C/core:$C/protocols:$C/transport-tcp:/tmp/vsync12/base-tandem.jar
R=/work/wt-vsync12/jmh/results/vsync12-2026-11-27
sim() { local name=$1; shift; echo "java -cp <B classes>:tandem.jar io.tandem.cli.TandemCli sim $*  ($(date +%T))" > $R/$name.txt; java -cp $CP io.tandem.cli.TandemCli sim "$@" >> $R/$name.txt 2>&1; echo "rc=$? ($(date +%T))" >> $R/$name.txt; }
sim sim-vsync-1000 --protocol virtual-synchrony --seeds 1000
sim sim-vsync-n5-300 --protocol virtual-synchrony --nodes 5 --seeds 300
sim sim-vsync-shards2-200 --protocol virtual-synchrony --shards 2 --seeds 200
sim sim-vsync-shards2-durable-200 --protocol virtual-synchrony --shards 2 --durable --seeds 200
