#!/usr/bin/env bash
# One round of the A/B (run through /work/tools/bench): per entry of ORDER one PeerBenchmark call with one system, one
# run, 64 B values, fsync off, the adaptive warm-up (15..40 s), 10 s measured. The harness is this branch's in every
# call; --repo picks the jars: base = main 5d59415 built in /tmp/hp6-base, new = this branch.
# Usage: ab.sh OUTDIR CLIENTS ENTRY...   ENTRY: base-raft | new-raft | new-unrep | new-jgroups
set -u
out="$1"; clients="$2"; shift 2
tree=/work/wt-hotpath6; base=/tmp/hp6-base
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
cd "$tree"
for e in "$@"; do
  case "$e" in
    base-raft) repo=$base; sys=tandem-raft ;;
    new-raft) repo=$tree; sys=tandem-raft ;;
    new-unrep) repo=$tree; sys=tandem-unreplicated ;;
    new-jgroups) repo=$tree; sys=jgroups-raft ;;
    *) echo "unknown entry $e" >&2; exit 2 ;;
  esac
  echo "$e start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs 64B-nofsync --clients "$clients" --warmup 15 --max-warmup 40 --measure 10 \
    --slowdown none --base-port 25000 --work-dir /var/tmp/hp6-peerbench --out "$out/$e" > "$out/$e.log" 2>&1
  echo "$e end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$e.log")" >> "$out/load.txt"
done
