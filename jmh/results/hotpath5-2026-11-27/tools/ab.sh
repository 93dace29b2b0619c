#!/bin/bash
# Interleaved base/new rounds (one PeerBenchmark call per tree and round). usage: ab.sh OUT CLIENTS CONFIG FIRST LAST
set -u
out=$1; clients=$2; config=$3; first=$4; last=$5
JAVA=$(/work/wt-hotpath5/bin/find-jdk.sh)/bin/java
run() { # tag repo systems
  mkdir -p "$out/$1"
  echo "=== $(date +%T) $1 load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/hp5-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$2" --systems "$3" --runs 1 --configs "$config" --clients "$clients" --warmup 15 --measure 10 --slowdown none \
    --base-port 25000 --work-dir /var/tmp/hp5-peerbench --out "$out/$1" 2>&1 | grep -E "puts/s|\[[0-9]+/|FAIL|fail"
}
for r in $(seq "$first" "$last"); do
  if (( r % 2 == 1 )); then
    run "r$r-base" /tmp/hp5-base tandem-raft,tandem-multipaxos; run "r$r-new" /tmp/hp5-new tandem-raft,tandem-multipaxos
  else
    run "r$r-new" /tmp/hp5-new tandem-multipaxos,tandem-raft; run "r$r-base" /tmp/hp5-base tandem-multipaxos,tandem-raft
  fi
done
echo "=== end $(date +%T)"
