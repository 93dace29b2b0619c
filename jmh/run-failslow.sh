#!/usr/bin/env bash
# The fail-slow cluster benchmark (io.tandem.bench.FailSlowBenchmark); see jmh/README.md.
#   jmh/run-failslow.sh                 quick mode: 10 s per scenario, 1 run
#   jmh/run-failslow.sh --mode full     60 s per scenario, 3 runs, medians
#   jmh/run-failslow.sh --help          every option
# Needs root (cgroups, loop devices, mounts). Builds jmh/target/benchmarks.jar when a source is newer.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_HOME="$("$root/bin/find-jdk.sh")"
export JAVA_HOME
jar="$root/jmh/target/benchmarks.jar"

stale() {
  [[ ! -f "$jar" ]] && return 0
  [[ -n "$(find "$root" -path "$root/*/target" -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$jar" -print -quit)" ]]
}

if [[ "${TANDEM_SKIP_BUILD:-0}" != 1 ]] && stale; then
  echo "run-failslow: building jmh/target/benchmarks.jar..." >&2
  if ! (cd "$root" && ./mvnw -q -B -DskipTests -pl jmh -am package >"$root/jmh/target-build.log" 2>&1); then
    echo "run-failslow: build failed; the log is in $root/jmh/target-build.log:" >&2
    tail -40 "$root/jmh/target-build.log" >&2
    exit 1
  fi
fi
cd "$root"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$jar" io.tandem.bench.FailSlowBenchmark "$@"
