#!/bin/bash
# rdmc14: more samples of 64 KiB at n = 2-3, A = main 8f2e954 (/tmp/rdmc14/A.jar) vs B = this branch 0ed56e3 (/tmp/rdmc14/B.jar),
# order A B B A B A, one JVM each (--inflight 64); the raw one stream (A's jar: the transport is the same in both) at 64 KiB at the
# start and end. Blocks of 1 MiB; 2 s warm-up, 1.5 s measured. Ports 25000-25899. Run through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 150 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 "$@" --base-port $((25000 + 100 * (j % 9))) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run,\|OpenJDK\|Java HotSpot" | sed "s/^1,/$label,/; s/^# /# $label /"
  j=$((j + 1))
}
run raw /tmp/rdmc14/A.jar --sizes 2 --payloads 65536 --raw true --tandem false
for x in A B B A B A; do
  run $x-64k /tmp/rdmc14/$x.jar --sizes 2,3 --payloads 65536 --raw false --inflight 64
done
run raw /tmp/rdmc14/A.jar --sizes 2 --payloads 65536 --raw true --tandem false
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
