#!/bin/bash
# The two sharded ./tandem sim runs of the brief (the rest of sims.sh tandem, started after nodes5 was stopped).
cd /work/wt-rdmc8
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
export TANDEM_SKIP_BUILD=1
out=jmh/results/rdmc8-2026-11-27
run() { local name=$1; shift; echo "# $(date -u +%T) start $name: $*" >> $out/sims-progress.txt; "$@" > $out/$name.txt 2>&1; echo "# $(date -u +%T) end $name rc=$? $(tail -1 $out/$name.txt)" >> $out/sims-progress.txt; }
run sim-vsync-shards2-200 ./tandem sim --protocol virtual-synchrony --shards 2 --seeds 200
run sim-vsync-shards2-durable-200 ./tandem sim --protocol virtual-synchrony --shards 2 --durable --seeds 200
