#!/bin/bash
# Seeds for the engine change: the CLI of merge13's tandem.jar with this branch's classes ahead of it.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
L=$1; C=/tmp/vsync11/b-classes/$L
CP=$C/core:$C/protocols:/tmp/vsync11/basesrc/kvstore/target/tandem.jar
R=/work/wt-vsync11/jmh/results/vsync11-2026-11-27
sim() { local name=$1; shift; echo "java -cp <$L classes>:tandem.jar io.tandem.cli.TandemCli sim $*" > $R/$name.txt; java -cp $CP io.tandem.cli.TandemCli sim "$@" >> $R/$name.txt 2>&1; echo "rc=$?" >> $R/$name.txt; }
sim sim-vsync-1000 --protocol virtual-synchrony --seeds 1000
sim sim-vsync-n5-500 --protocol virtual-synchrony --nodes 5 --seeds 500
sim sim-vsync-shards2-200 --protocol virtual-synchrony --shards 2 --seeds 200
sim sim-vsync-shards2-durable-200 --protocol virtual-synchrony --shards 2 --durable --seeds 200
