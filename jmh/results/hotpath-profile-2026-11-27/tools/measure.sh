#!/bin/bash
# Interleaved base/new rounds of the peer benchmark; one PeerBenchmark call per trial group.
# usage: measure.sh OUT CLIENTS ROUNDS [extra PeerBenchmark args]
set -u
out=$1; clients=$2; rounds=$3; shift 3; extra=("$@")
NEW=/tmp/hp3/new; BASE=/tmp/hp3-base
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
run() { # tag repo systems
  echo "=== $(date +%T) $1 load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xmx512m -cp $NEW/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$2" --systems "$3" --runs 1 --configs 64B-nofsync --clients "$clients" --warmup 15 --measure 10 --slowdown none \
    --base-port 42000 --work-dir /var/tmp/hp3-peerbench --out "$out/$1" "${extra[@]}" 2>&1 | grep -E "puts/s|\[[0-9]+/|FAIL|fail" 
}
for r in $(seq 1 "$rounds"); do
  if (( r % 2 == 1 )); then
    run "r$r-base" $BASE tandem-raft; run "r$r-new" $NEW tandem-raft,jgroups-raft,tandem-unreplicated
  else
    run "r$r-new" $NEW tandem-unreplicated,jgroups-raft,tandem-raft; run "r$r-base" $BASE tandem-raft
  fi
done
echo "=== end $(date +%T)"
