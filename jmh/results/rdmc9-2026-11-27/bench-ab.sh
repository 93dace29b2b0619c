#!/bin/bash
# A/B of large-message bandwidth in one invocation (run it through /work/tools/bench), after rdmc8's bench-ab.sh:
#   A = /tmp/rdmc9-A.jar (merge13: blocks copied out of the message, codec buffer grown while encoding),
#   B = /tmp/rdmc9-B.jar (this branch: blocks as slices, exact-size encoding).
# SUFFIX=-len: the same jars with LargeMessageBenchmark counting msg.length() instead of copying msg.payload().
# Points n = 2 and n = 3 at 1 MiB and 16 MiB; per point A B B A (the order flips for the second payload).
# Raw one-stream point once per payload from B's JVM; "reverse" as $1 visits the payloads the other way round. Stops starting new points after 270 s. Ports 24000-24999.
cd /work/wt-rdmc9
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
common=(--sizes 2,3 --block 1048576 --warmup 1 --measure 2 --runs 1 --inflight 4)
start=$(date +%s)
echo "# load at start: $(uptime)"
port=24000
bench() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 270 )); then echo "# skipped $label $* (time)"; return; fi
  port=$((port + 60))
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark "${common[@]}" --base-port $port "$@" 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^#\|^run," | sed "s/^1,/$label:/"
}
i=0
payloads="1048576 16777216"
[[ "$1" == reverse ]] && payloads="16777216 1048576"
for p in $payloads; do
  bench R /tmp/rdmc9-B${SUFFIX}.jar --payloads $p --tandem false --sizes 2
  if (( i % 2 == 0 )); then order="A B B A"; else order="B A A B"; fi
  for x in $order; do bench $x /tmp/rdmc9-$x${SUFFIX}.jar --payloads $p --raw false; done
  i=$((i + 1))
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
