#!/bin/bash
# A/B of large-message bandwidth in one invocation (run it through /work/tools/bench), after rdmc9's bench-ab.sh:
#   A = /tmp/rdmc10-A.jar (main daca97b: a block encoded into a frame array, then copied into the send buffer;
#       received through Netty's cumulation, copied out of it, then out of the frame by Kryo),
#   B = /tmp/rdmc10-B.jar (this branch: head + block copied once into the send buffer; a large body read into
#       its own array as it arrives and kept as the block).
# Both jars hold the same LargeMessageBenchmark. One JVM per build and payload: the raw points (1 stream, and
# n-1 streams at once for n = 3, 4, 5: the transport changed, so both builds measure their own raw numbers),
# then Tandem n = 2..5. Payloads 64 KiB, 1 MiB, 16 MiB; blocks of 1 MiB; 4 in flight; 0.7 s warm-up, 1.5 s measured.
# $1 = "reverse" runs B before A and the payloads the other way round. Stops starting JVMs after 270 s. Ports 24000-24999.
cd /work/wt-rdmc10
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
common=(--sizes 2,3,4,5 --block 1048576 --warmup 0.7 --measure 1.5 --runs 1 --inflight 4)
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar payload
  local label=$1 jar=$2 p=$3
  if (( $(date +%s) - start > 270 )); then echo "# skipped $label $p (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      "${common[@]}" --payloads $p --base-port $((24000 + 90 * j)) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^#\|^run," | sed "s/^1,/$label:/"
  j=$((j + 1))
}
payloads="65536 1048576 16777216"; builds="A B"
[[ "$1" == reverse ]] && payloads="16777216 1048576 65536" && builds="B A"
i=0
for p in $payloads; do
  if (( i % 2 == 0 )); then order="$builds"; else order=$(echo $builds | rev); fi
  for x in $order; do run $x /tmp/rdmc10-$x.jar $p; done
  i=$((i + 1))
done
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
