#!/usr/bin/env bash
# Times ParallelExecutorTest (core) and ParallelKvExecutionTest (kvstore) once each; label in $1.
set -u
cd /work/wt-tests17
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
M="./mvnw -o -q -B -Dmaven.repo.local=/tmp/m2-tests17 -Dmaven.repo.local.tail=/root/.m2/repository -Dsurefire.failIfNoSpecifiedTests=false"
out=jmh/results/tests17-2026-11-28/psmr-$1.txt
: > $out
for t in core:ParallelExecutorTest kvstore:ParallelKvExecutionTest; do
  mod=${t%%:*}; cls=${t##*:}
  echo "$(date -u +%H:%M:%S) start $cls load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
  s=$(date +%s.%N)
  $M -pl $mod surefire:test -Dtest=$cls > jmh/results/tests17-2026-11-28/psmr-$1-$cls.log 2>&1; rc=$?
  e=$(date +%s.%N)
  echo "$(date -u +%H:%M:%S) end $cls rc=$rc wall=$(echo "$e - $s" | bc) s load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
  grep -h -o 'testcase name="[^"]*" classname="[^"]*" time="[^"]*"' $mod/target/surefire-reports/TEST-*$cls.xml | sed -E 's/testcase name="([^"]*)".*time="([^"]*)"/  \2 \1/' >> $out
done
cat $out
