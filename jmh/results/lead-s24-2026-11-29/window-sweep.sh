#!/usr/bin/env bash
# Issue 22, lead session 24: the send window W of the ordered multicast against JGroups SEQUENCER, interleaved, rounds
# with the order rotated; main d4813d3d's benchmarks.jar. Usage: window-sweep.sh PAYLOAD ROUNDS W...
# (W = 0 is the benchmark's default, windowFor: 256 at 1 KiB, 64 at 8 KiB).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
jar=/tmp/lead24-base/jmh/target/benchmarks.jar
payload=$1 rounds=$2; shift 2
i=0
run() { # label system extra...
  local label=$1 sys=$2; shift 2
  local port=$((20000 + (i % 3) * 300)); i=$((i + 1))
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 150 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads $payload --systems $sys \
     --warmup 2 --measure 4 --base-port $port "$@" 2>/dev/null | grep -E '^(tandem|jgroups)' | sed "s/^/$label,/"
}
entries=(J "$@")
n=${#entries[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    x=${entries[$(( (k + r) % n ))]}
    if [[ $x == J ]]; then run J jgroups-sequencer
    elif [[ $x == 0 ]]; then run W0 tandem-ordered
    else run W$x tandem-ordered --window $x; fi
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
