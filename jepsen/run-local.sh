#!/usr/bin/env bash
# The local Jepsen runner: builds the runner jar if a source changed, then runs it as root.
#
#   jepsen/run-local.sh --protocol raft --nemesis all --time 60
#   jepsen/run-local.sh --workload set --protocol toy-pb --nemesis partition,kill --time 120 --seed 42
#   jepsen/run-local.sh cleanup          # remove what a crashed run left behind
#   jepsen/run-local.sh --help
#
# Results go to store/<test>/<timestamp>/ (store/latest points at the last run). Exit status: 0 valid,
# 1 anomaly found, 2 unknown, 3 the run could not be done, 64 bad arguments.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "$(id -u)" != 0 ]]; then
  echo "run-local.sh: needs root (network namespaces, iptables, cgroups, loop devices); try: sudo $0 $*" >&2
  exit 3
fi
JAVA_HOME="$("$root/bin/find-jdk.sh")"
export JAVA_HOME
jar="$root/jepsen/target/tandem-jepsen.jar"

stale() {
  [[ ! -f "$jar" ]] && return 0
  [[ -n "$(find "$root" -path "$root/*/target" -prune -o -path "$root/store" -prune -o \( -path '*/src/main/*' -o -name 'pom.xml' -o -path '*/workloads/*.edn' \) -newer "$jar" -print -quit)" ]]
}

if [[ "${TANDEM_SKIP_BUILD:-0}" != 1 ]] && stale; then
  echo "run-local.sh: building the runner (first use or sources changed)..." >&2
  if ! (cd "$root" && ./mvnw -q -B -DskipTests -pl jepsen -am package >"$root/.jepsen-build.log" 2>&1); then
    echo "run-local.sh: build failed; the log is in $root/.jepsen-build.log:" >&2
    tail -40 "$root/.jepsen-build.log" >&2
    exit 3
  fi
fi
cd "$root"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g \
  -jar "$jar" --workloads-dir "$root/jepsen/workloads" "$@"
