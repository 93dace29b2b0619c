#!/bin/bash
# rdmc11: A/B of large-message bandwidth in one invocation (run through /work/tools/bench).
#   A = /tmp/rdmc11-A.jar (merge14 83fd318: at most 4 large messages per sender under way),
#   B = /tmp/rdmc11-B.jar (this branch: up to 16 while they hold <= 4 MiB, 4 of any size).
# Order: raw (B's transport, the same code as A's), A B B A with --inflight 64 (the benchmark's own window out
# of the way), B with --inflight 4 (the default), raw again. Group sizes 2, 3, 5; 64 KiB and 1 MiB;
# blocks of 1 MiB; 0.7 s warm-up, 1.5 s measured. Stops starting JVMs after 170 s. Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 170 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 0.7 --measure 1.5 --runs 1 --payloads 65536,1048576 "$@" --base-port $((24000 + 100 * j)) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^#\|^run," | sed "s/^1,/$label,/"
  j=$((j + 1))
}
run raw /tmp/rdmc11-B.jar --sizes 2 --raw true --tandem false
for x in A B B A; do run $x-if64 /tmp/rdmc11-$x.jar --sizes 2,3,5 --raw false --inflight 64; done
run B-if4 /tmp/rdmc11-B.jar --sizes 2,3,5 --raw false --inflight 4
run raw /tmp/rdmc11-B.jar --sizes 2 --raw true --tandem false
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
