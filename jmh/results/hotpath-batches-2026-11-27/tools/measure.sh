#!/bin/bash
# Interleaved base/new rounds of the peer benchmark (one PeerBenchmark call per tree and round), with the
# per-thread CPU sampler beside each call. usage: measure.sh OUT CLIENTS FIRST_ROUND LAST_ROUND [extra args]
set -u
out=$1; clients=$2; first=$3; last=$4; shift 4; extra=("$@")
NEW=/tmp/hp4-new; BASE=/tmp/hp4-base
JAVA=$(/work/wt-hotpath4/bin/find-jdk.sh)/bin/java
run() { # tag repo systems
  mkdir -p "$out/$1"
  echo "=== $(date +%T) $1 load $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 /tmp/hp4/threads-sampler.py "$out/$1/threads.txt" 5 hp4-peerbench & sp=$!
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xmx512m -cp $NEW/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$2" --systems "$3" --runs 1 --configs 64B-nofsync --clients "$clients" --warmup 15 --measure 10 --slowdown none \
    --base-port 20000 --work-dir /var/tmp/hp4-peerbench --out "$out/$1" "${extra[@]}" 2>&1 | grep -E "puts/s|\[[0-9]+/|FAIL|fail"
  kill $sp
}
for r in $(seq "$first" "$last"); do
  if (( r % 2 == 1 )); then
    run "r$r-base" $BASE tandem-raft,tandem-multipaxos; run "r$r-new" $NEW tandem-raft,tandem-multipaxos,jgroups-raft
  else
    run "r$r-new" $NEW jgroups-raft,tandem-multipaxos,tandem-raft; run "r$r-base" $BASE tandem-multipaxos,tandem-raft
  fi
done
echo "=== end $(date +%T)"
