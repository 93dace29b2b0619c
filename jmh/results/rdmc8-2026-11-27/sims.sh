#!/bin/bash
# The simulator seeds of the brief for an engine change, one after another; each output in its own file here.
cd /work/wt-rdmc8
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
export TANDEM_SKIP_BUILD=1
out=jmh/results/rdmc8-2026-11-27
run() { local name=$1; shift; echo "# $(date -u +%T) start $name: $*" >> $out/sims-progress.txt; "$@" > $out/$name.txt 2>&1; echo "# $(date -u +%T) end $name rc=$? $(tail -1 $out/$name.txt)" >> $out/sims-progress.txt; }
case "$1" in
  tandem)
    run sim-vsync-1000 ./tandem sim --protocol virtual-synchrony --seeds 1000
    run sim-vsync-nodes5-500 ./tandem sim --protocol virtual-synchrony --nodes 5 --seeds 500
    run sim-vsync-shards2-200 ./tandem sim --protocol virtual-synchrony --shards 2 --seeds 200
    run sim-vsync-shards2-durable-200 ./tandem sim --protocol virtual-synchrony --shards 2 --durable --seeds 200
    ;;
  large)
    run large-sim-500 ./mvnw -o -B -Dmaven.repo.local=/tmp/m2-rdmc8 -Dmaven.repo.local.tail=/root/.m2/repository -pl protocols surefire:test \
      -Dtest=LargeMessageSimulationTest -Dvsync.large=true -Dsurefire.failIfNoSpecifiedTests=false
    ;;
  vsync)
    run vsync-tests ./mvnw -o -B -Dmaven.repo.local=/tmp/m2-rdmc8 -Dmaven.repo.local.tail=/root/.m2/repository -pl protocols surefire:test \
      -Dtest='io.tandem.protocols.vsync.**.*Test' -Dsurefire.failIfNoSpecifiedTests=false
    ;;
esac
