#!/usr/bin/env bash
# Runs the whole test suites of core and kvstore once (surefire reports kept per label in jmh/results/tests17-2026-11-28/reports-$1).
set -u
cd /work/wt-tests17
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
out=jmh/results/tests17-2026-11-28/modules-$1.txt
echo "$(date -u +%H:%M:%S) start load $(cut -d' ' -f1-3 /proc/loadavg)" > $out
s=$(date +%s)
./mvnw -o -B -Dmaven.repo.local=/tmp/m2-tests17 -Dmaven.repo.local.tail=/root/.m2/repository -pl core,kvstore test > jmh/results/tests17-2026-11-28/modules-$1.log 2>&1
rc=$?
echo "$(date -u +%H:%M:%S) end rc=$rc wall=$(( $(date +%s) - s )) s load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
mkdir -p jmh/results/tests17-2026-11-28/reports-$1
for m in core kvstore; do mkdir -p jmh/results/tests17-2026-11-28/reports-$1/$m; cp $m/target/surefire-reports/TEST-*.xml jmh/results/tests17-2026-11-28/reports-$1/$m/ 2>/dev/null; done
grep -E 'Tests run:.*Fail|BUILD|ERROR' jmh/results/tests17-2026-11-28/modules-$1.log | tail -8 >> $out
