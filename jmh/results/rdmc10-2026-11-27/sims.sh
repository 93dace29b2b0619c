#!/bin/bash
# Seeds for rdmc10 (not through bench): LargeMessageSimulationTest 1-500 in two chunks, then ./tandem sim vsync 500.
cd /work/wt-rdmc10
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
R=jmh/results/rdmc10-2026-11-27
M=(./mvnw -o -B -Dmaven.repo.local=/tmp/m2-rdmc10 -Dmaven.repo.local.tail=/root/.m2/repository)
for first in 1 251; do
  "${M[@]}" surefire:test -pl protocols -Dtest=LargeMessageSimulationTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dvsync.large.first=$first -Dvsync.large.seeds=250 > $R/large-sim-$first-$((first + 249)).txt 2>&1
  echo "chunk $first done rc=$? $(date)"
done
(time ./tandem sim --protocol virtual-synchrony --seeds 500) > $R/sim-vsync-500.txt 2>&1
echo "tandem sim done rc=$? $(date)"
