#!/usr/bin/env bash
# The performance simulator against the real cluster benchmark, in one invocation (issue 18; see protocols/README.md,
# "Performance simulator"): runs jmh/run-peers.sh for tandem-raft, tandem-multipaxos and tandem-unreplicated (64 B values,
# fsync on) at 1, 16 and 64 closed-loop clients, then the model at the same points on this machine's cores, and prints
# the error of each point. Options: --clients "1 16 64" --warmup S --measure S --out DIR --costs FILE --disk during|before|none --fsync on|off.
# The disk is an input of the model, not a cost of the code: on a shared machine the fsync distribution moves by 10x within
# minutes with the other processes' writes, so by default (--disk during) io.tandem.bench.sim.FsyncProbe samples syncs on
# the real cluster's filesystem *while* each system's real run goes on (one run-peers per system and point), and that
# system's point is modelled with that disk; --disk
# before measures it with CostCalibration --disk-only right before the run instead; --disk none uses the table as it is.
# --fsync off runs the 64B-nofsync configuration and samples the page-cache write instead (the storage's flush then):
# it takes the shared disk out of the comparison, leaving the code's CPU and network costs to be checked.
# --systems "tandem-raft ..." limits the systems (default all three).
# --profile-window writes each real run's CPU by thread over exactly its measured window to DIR/profile-<clients>-<system>/
# (run-peers --profile-window: /proc read at the window's start and end, nothing started inside it).
# --real-only runs only the real side and writes the SimValidation command for it to model.sh in the output directory: the
# model is deterministic (the table and the disk samples are inputs), so it can run after the benchmark lock is released.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_HOME="$("$root/bin/find-jdk.sh")"
export JAVA_HOME
clients="1 16 64"
warmup=15
measure=10
out="$root/jmh/target/simvalidate/$(date +%Y%m%d-%H%M%S)"
costs=()
disk=during
fsync=on
realonly=0
profile=0
systems_opt="tandem-raft tandem-multipaxos tandem-unreplicated"
usage() { sed -n '2,/^set -euo/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" | grep -v '^set -euo'; }
# Every option but the flags takes a value: one missing fails here, with its name, before any build.
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
  esac
  if [[ "$1" == --* ]] && ! [[ "$1" =~ ^--(real-only|profile-window)$ ]] && (($# < 2)); then echo "run-simvalidate: $1 needs a value (see --help)" >&2; exit 2; fi
  case "$1" in
    --clients) clients="$2"; shift ;;
    --warmup) warmup="$2"; shift ;;
    --measure) measure="$2"; shift ;;
    --out) out="$2"; shift ;;
    --costs) costs=(--costs "$2"); shift ;;
    --disk) disk="$2"; shift ;;
    --fsync) fsync="$2"; shift ;;
    --real-only) realonly=1 ;;
    --profile-window) profile=1 ;;
    --systems) systems_opt="$2"; shift ;;
    *) echo "run-simvalidate: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$fsync" in on) config=64B-fsync; nosync=() ;; off) config=64B-nofsync; nosync=(--no-sync) ;; *) echo "--fsync must be on or off" >&2; exit 2 ;; esac
[[ "$fsync" == off && "$disk" == before ]] && { echo "--disk before measures fsync; use --disk during with --fsync off" >&2; exit 2; }
mkdir -p "$out"
# Only the jars this needs (run-peers.sh alone would build every peer system's adapter).
jar="$root/jmh/target/benchmarks.jar"
if [[ "${TANDEM_SKIP_BUILD:-0}" != 1 ]] && { [[ ! -f "$jar" || ! -f "$root/peers/tandem/target/peer-tandem.jar" ]] || [[ -n "$(find "$root" -path "$root/*/target" -prune -o -path "$root/.git" -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$jar" -print -quit)" ]]; }; then
  echo "run-simvalidate: building jmh and peers/tandem..." >&2
  (cd "$root" && ./mvnw -q -B -DskipTests -pl jmh,peers/tandem -am package >"$out/build.log" 2>&1) || { tail -40 "$out/build.log" >&2; exit 1; }
fi
export TANDEM_SKIP_BUILD=1
real=()
work="${TANDEM_PEERBENCH_WORK:-/var/tmp/tandem-peerbench-simvalidate}"
base="${costs[1]:-$root/core/src/main/resources/io/tandem/sim/cost/calibrated-costs.properties}"
systems="$systems_opt"
for c in $clients; do
  for sys in $systems; do
    # One real run and one disk sample per system: the three systems of a point run one after another, and the shared
    # disk moves between them, so each is modelled with the disk it ran on.
    tag="$c-$sys"
    mkdir -p "$work"
    case "$disk" in
      before)
        "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -Dtandem.bench.dir="$work" -cp "$jar" \
          io.tandem.bench.sim.CostCalibration --disk-only "$base" --quick --out "$out/costs-$tag.properties" >"$out/disk-$tag.log" 2>&1 \
          && real+=(--costs-for "$c/$sys=$out/costs-$tag.properties") || echo "run-simvalidate: disk measurement failed for $tag (see $out/disk-$tag.log)" >&2 ;;
      during)
        rm -f "$out/stop-probe"
        "$JAVA_HOME/bin/java" -Xmx64m -cp "$jar" io.tandem.bench.sim.FsyncProbe --dir "$work" --base "$base" --out "$out/costs-$tag.properties" \
          --stop-file "$out/stop-probe" ${nosync[@]+"${nosync[@]}"} >"$out/disk-$tag.log" 2>&1 &
        probe=$! ;;
      none) ;;
      *) echo "--disk must be during, before or none" >&2; exit 2 ;;
    esac
    echo "run-simvalidate: real cluster, $sys, $c clients..." >&2
    prof=()
    [[ "$profile" == 1 ]] && prof=(--profile-window "$out/profile-$tag")
    "$root/jmh/run-peers.sh" --systems "$sys" --configs "$config" --slowdown none --runs 1 \
      --warmup "$warmup" --measure "$measure"  --clients "$c" --work-dir "$work" --base-port "${TANDEM_PEERBENCH_PORT:-26000}" ${prof[@]+"${prof[@]}"} --out "$out/real-$tag" >"$out/real-$tag.log" 2>&1 || echo "run-simvalidate: run-peers exited $? for $tag (see $out/real-$tag.log)" >&2
    if [[ "$disk" == during ]]; then
      touch "$out/stop-probe"
      wait "$probe" && real+=(--costs-for "$c/$sys=$out/costs-$tag.properties") || echo "run-simvalidate: disk probe failed for $tag (see $out/disk-$tag.log)" >&2
    fi
    real+=(--real "$c=$out/real-$tag")
  done
done
echo "load average now: $(cat /proc/loadavg)" | tee "$out/conditions.txt"
if [[ "$realonly" == 1 ]]; then
  printf '%q ' "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp "$root/jmh/target/benchmarks.jar" \
    io.tandem.bench.sim.SimValidation "${real[@]}" ${costs[@]+"${costs[@]}"} --config "$config" >"$out/model.sh"
  echo "\"\$@\"" >>"$out/model.sh"
  echo "run-simvalidate: real side done; the model: bash $out/model.sh [--separate-disks] --out FILE" >&2
  exit 0
fi
TANDEM_SKIP_BUILD=1 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -cp "$root/jmh/target/benchmarks.jar" \
  io.tandem.bench.sim.SimValidation "${real[@]}" ${costs[@]+"${costs[@]}"} --config "$config" --out "$out/validation.csv" 2>&1 | grep -v '^WARNING' | tee "$out/validation.txt"
