#!/usr/bin/env bash
# The performance simulator against the real cluster benchmark, in one invocation (issue 18; see protocols/README.md,
# "Performance simulator"): runs jmh/run-peers.sh for tandem-raft, tandem-multipaxos and tandem-unreplicated (64 B values,
# fsync on) at 1, 16 and 64 closed-loop clients, then the model at the same points on this machine's cores, and prints
# the error of each point. Options: --clients "1 16 64" --warmup S --measure S --out DIR --costs FILE.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_HOME="$("$root/bin/find-jdk.sh")"
export JAVA_HOME
clients="1 16 64"
warmup=15
measure=10
out="$root/jmh/target/simvalidate/$(date +%Y%m%d-%H%M%S)"
costs=()
while (($#)); do
  case "$1" in
    --clients) clients="$2"; shift ;;
    --warmup) warmup="$2"; shift ;;
    --measure) measure="$2"; shift ;;
    --out) out="$2"; shift ;;
    --costs) costs=(--costs "$2"); shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"
# Only the jars this needs (run-peers.sh alone would build every peer system's adapter).
jar="$root/jmh/target/benchmarks.jar"
if [[ "${TANDEM_SKIP_BUILD:-0}" != 1 ]] && { [[ ! -f "$jar" || ! -f "$root/peers/tandem/target/peer-tandem.jar" ]] || [[ -n "$(find "$root" -path "$root/*/target" -prune -o -path "$root/.git" -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$jar" -print -quit)" ]]; }; then
  echo "run-simvalidate: building jmh and peers/tandem..." >&2
  (cd "$root" && ./mvnw -q -B -DskipTests -pl jmh,peers/tandem -am package >"$out/build.log" 2>&1) || { tail -40 "$out/build.log" >&2; exit 1; }
fi
export TANDEM_SKIP_BUILD=1
real=()
for c in $clients; do
  echo "run-simvalidate: real cluster, $c clients..." >&2
  "$root/jmh/run-peers.sh" --systems tandem-raft,tandem-multipaxos,tandem-unreplicated --configs 64B-fsync --slowdown none --runs 1 \
    --warmup "$warmup" --measure "$measure"  --clients "$c" --work-dir "${TANDEM_PEERBENCH_WORK:-/var/tmp/tandem-peerbench-simvalidate}" --base-port "${TANDEM_PEERBENCH_PORT:-26000}" --out "$out/real-$c" >"$out/real-$c.log" 2>&1 || echo "run-simvalidate: run-peers exited $? for $c clients (see $out/real-$c.log)" >&2
  real+=(--real "$c=$out/real-$c")
done
echo "load average now: $(cat /proc/loadavg)" | tee "$out/conditions.txt"
TANDEM_SKIP_BUILD=1 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp "$root/jmh/target/benchmarks.jar" \
  io.tandem.bench.sim.SimValidation "${real[@]}" ${costs[@]+"${costs[@]}"} --out "$out/validation.csv" 2>&1 | grep -v '^WARNING' | tee "$out/validation.txt"
