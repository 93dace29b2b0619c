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

# Bad arguments fail here, before any build (the options are read from the source); --help and --version print at
# once, from the jar as it is.
"$root/jmh/check-options.sh" run-failslow.sh "$root/jmh/src/main/java/io/tandem/bench/FailSlowBenchmark.java" "$@"
for arg in "$@"; do
  case "$arg" in
    -h|--help|-V|--version)
      if [[ -f "$jar" ]]; then
        stale && echo "run-failslow: (help of the jar as built; a source is newer, so a run rebuilds it first)" >&2
        exec "$JAVA_HOME/bin/java" -Xmx64m -cp "$jar" io.tandem.bench.FailSlowBenchmark "$arg"
      fi
      sed -n '2,/^set -euo/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" | grep -v '^set -euo'
      echo "Every option: build once (./mvnw -q -B -DskipTests -pl jmh -am package), then --help again."
      exit 0 ;;
  esac
done

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
