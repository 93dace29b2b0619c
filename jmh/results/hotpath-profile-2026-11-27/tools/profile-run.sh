#!/bin/bash
# One benchmark invocation: the peer benchmark with JFR on every JVM, plus the thread sampler.
set -u
out=$1; shift
mkdir -p "$out/jfr"
python3 /tmp/hp3/threads-sampler.py "$out/threads.txt" 5 hp3-peerbench &
sp=$!
cd /work/wt-hotpath3
TANDEM_SKIP_BUILD=1 jmh/run-peers.sh --work-dir /var/tmp/hp3-peerbench --base-port 42000 --out "$out" \
  "--jvm-opt=-XX:StartFlightRecording=delay=18s,duration=10s,settings=profile,filename=$out/jfr/rec-%p.jfr" "$@"
rc=$?
kill $sp
exit $rc
