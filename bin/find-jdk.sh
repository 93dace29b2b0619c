#!/usr/bin/env bash
# Prints the JAVA_HOME of a JDK 25 or newer: $JAVA_HOME if it qualifies, else a JDK found in the
# usual places. Exits 1 with a clear message if there is none. Sourced by ./tandem and .ci/run.
set -euo pipefail

java_major() { # prints the feature version of $1/bin/java, or 0
  local v
  v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -1)
  echo "${v:-0}"
}

required=25
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" && $(java_major "$JAVA_HOME") -ge $required ]]; then
  echo "$JAVA_HOME"; exit 0
fi
# The java on the PATH, if it is new enough (its home is two levels above the real binary).
if command -v java >/dev/null 2>&1; then
  home="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
  if [[ -x "$home/bin/javac" && $(java_major "$home") -ge $required ]]; then
    echo "$home"; exit 0
  fi
fi
for candidate in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25* /usr/lib/jvm/jdk-25* /opt/java/* /usr/lib/jvm/*; do
  if [[ -x "$candidate/bin/java" && -x "$candidate/bin/javac" && $(java_major "$candidate") -ge $required ]]; then
    echo "$candidate"; exit 0
  fi
done
echo "error: Tandem needs a JDK $required or newer and found none (JAVA_HOME=${JAVA_HOME:-unset}, java on the PATH: $(command -v java || echo none)); install one (e.g. Temurin 25 under /usr/lib/jvm) or point JAVA_HOME at it." >&2
exit 1
