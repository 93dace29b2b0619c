#!/usr/bin/env bash
# The cluster benchmark against peers (io.tandem.bench.peers.PeerBenchmark); see jmh/README.md.
#   jmh/run-peers.sh                       quick mode: 1 run, 64 B fsync off/on, 10 s + 10 s, follower/leader CPU quota
#   jmh/run-peers.sh --mode full           3 interleaved runs, 4 configurations, 20 s + 30 s, cpu/pause/net slowdowns
#   jmh/run-peers.sh --systems tandem-raft,ratis --slowdown none
#   jmh/run-peers.sh --help                every option
# Builds jmh/target/benchmarks.jar and every peers/<module>/target/peer-<module>.jar when a source is newer.
# Needs root for the CPU-quota slowdown (cgroup v1).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_HOME="$("$root/bin/find-jdk.sh")"
export JAVA_HOME
bench="$root/jmh/target/benchmarks.jar"

# The adapter modules present on this branch: peers/<module>/pom.xml listed in peers/pom.xml.
modules=()
for pom in "$root"/peers/*/pom.xml; do
  m="$(basename "$(dirname "$pom")")"
  [[ "$m" == driver ]] && continue
  grep -q "<module>$m</module>" "$root/peers/pom.xml" && modules+=("$m")
done

stale() { # $1: a jar; stale if missing or older than any source or pom of the repository
  [[ ! -f "$1" ]] && return 0
  [[ -n "$(find "$root" -path "$root/*/target" -prune -o -path "$root/.git" -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$1" -print -quit)" ]]
}

# Bad arguments fail here, before any build (the options are read from the source); --help and --version print at
# once, from the jar as it is.
"$root/jmh/check-options.sh" run-peers.sh "$root/jmh/src/main/java/io/tandem/bench/peers/PeerBenchmark.java" "$@"
for arg in "$@"; do
  case "$arg" in
    -h|--help|-V|--version)
      if [[ -f "$bench" ]]; then
        stale "$bench" && echo "run-peers: (help of the jar as built; a source is newer, so a run rebuilds it first)" >&2
        exec "$JAVA_HOME/bin/java" -Xmx64m -cp "$bench" io.tandem.bench.peers.PeerBenchmark "$arg"
      fi
      sed -n '2,/^set -euo/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" | grep -v '^set -euo'
      echo "Every option: build once (./mvnw -q -B -DskipTests -pl jmh -am package), then --help again."
      exit 0 ;;
  esac
done

build() { # $1: comma-separated module list
  (cd "$root" && ./mvnw -q -B -DskipTests -pl "$1" -am package >"$root/jmh/target-build.log" 2>&1)
}

if [[ "${TANDEM_SKIP_BUILD:-0}" != 1 ]]; then
  targets=()
  stale "$bench" && targets+=(jmh)
  for m in "${modules[@]}"; do stale "$root/peers/$m/target/peer-$m.jar" && targets+=("peers/$m"); done
  if ((${#targets[@]} > 0)); then
    list="$(IFS=,; echo "${targets[*]}")"
    echo "run-peers: building $list..." >&2
    if ! build "$list"; then
      # One broken adapter must not stop the others: build each module alone; a system without a jar is skipped.
      echo "run-peers: the joint build failed; building each module alone..." >&2
      for t in "${targets[@]}"; do
        if ! build "$t"; then
          echo "run-peers: building $t failed (its systems will be skipped); last lines of the log:" >&2
          tail -15 "$root/jmh/target-build.log" >&2
          [[ "$t" == jmh ]] && exit 1
        fi
      done
    fi
  fi
fi
cd "$root"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$bench" io.tandem.bench.peers.PeerBenchmark "$@"
