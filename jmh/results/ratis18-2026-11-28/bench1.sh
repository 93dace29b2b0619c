#!/usr/bin/env bash
# Bench run 1 (ratis18, issue 25): Ratis' reference against the adapter, 64 writers, 64 B values, fsync off,
# 75 s of load each, the last 20 s measured; ports 18000-18299.
set -u
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
here="$(cd "$(dirname "$0")" && pwd)"; out=$here/bench1
mkdir -p $out
{
  echo "start: $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $here/trial-reference.sh $out reference-async 18000 75 20 64 false async
  $here/trial-adapter.sh $out adapter 18100 75 20 64 false
  $here/trial-adapter.sh $out adapter-nometadata 18200 75 20 64 false --opt log-metadata=false
  echo "end: $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee $out/summary.txt
