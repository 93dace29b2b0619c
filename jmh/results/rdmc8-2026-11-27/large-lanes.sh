#!/bin/bash
# LargeMessageSimulationTest seeds in chunks (each prints its count when done): ./large-lanes.sh FIRST CHUNK COUNT
cd /work/wt-rdmc8
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
first=$1; chunk=$2; count=$3
for ((c = 0; c < count; c++)); do
  f=$((first + c * chunk)); n=$chunk; (( f + n > 501 )) && n=$((501 - f))
  (( n <= 0 )) && break
  ./mvnw -o -B -Dmaven.repo.local=/tmp/m2-rdmc8 -Dmaven.repo.local.tail=/root/.m2/repository -pl protocols surefire:test \
    -Dtest='LargeMessageSimulationTest#largeAndSmallMessagesKeepVirtualSynchronyThroughCrashesMidTransfer' -Dvsync.large.first=$f -Dvsync.large.seeds=$n \
    -Dsurefire.failIfNoSpecifiedTests=false > jmh/results/rdmc8-2026-11-27/large-sim-from$f.txt 2>&1
done
