#!/bin/bash
# One PeerBenchmark invocation: 3 interleaved runs of SYSTEMS at CLIENTS clients and CONFIG, from the jars in REPO.
# usage: matrix.sh OUT REPO CLIENTS CONFIG SYSTEMS [extra args]
set -u
out=$1; repo=$2; clients=$3; config=$4; systems=$5; shift 5
JAVA=$(/work/wt-hotpath5/bin/find-jdk.sh)/bin/java
mkdir -p "$out"
echo "=== $(date +%T) $out load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 /tmp/hp5/threads-sampler.py "$out/threads.txt" 5 hp5-peerbench & sp=$!
"$JAVA" --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/hp5-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
  --repo "$repo" --systems "$systems" --runs 3 --configs "$config" --clients "$clients" --warmup 15 --measure 10 --slowdown none \
  --base-port 25000 --work-dir /var/tmp/hp5-peerbench --out "$out" "$@" 2>&1 | grep -E "puts/s|\[[0-9]+/|FAIL|fail|load"
kill $sp
echo "=== end $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
