#!/usr/bin/env bash
# Bench run 2 (ratis18, issue 25): the harness with the fixed adapter, ratis, sofajraft, jgroups-raft at 64 clients,
# 64 B, fsync off, adaptive warm-up 30..75 s, 15 s measured; then one Ratis adapter trial at 1 KiB (by hand, 60 s, the
# last 15 s measured). Ports 18400-19299.
set -u
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../../.." && pwd)"
out=$here/bench2; mkdir -p $out
{
  echo "start: $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd $root && TANDEM_SKIP_BUILD=1 jmh/run-peers.sh --systems ratis,sofajraft,jgroups-raft --configs 64B-nofsync --clients 64 --runs 1 \
     --warmup 30 --max-warmup 75 --measure 15 --slowdown none --base-port 18400 --work-dir /var/tmp/ratis18-peerbench --out $out/peers)
  echo "peers done: $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $here/trial-adapter.sh $out adapter-1KiB 19250 60 15 1024 false
  echo "end: $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee $out/summary.txt
