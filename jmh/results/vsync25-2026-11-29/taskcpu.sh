#!/bin/bash
# vsync25: CPU of every task of the benchmark JVM (Java threads and kernel-side io_uring workers iou-*), and of the whole
# machine (/proc/stat: user, system, softirq, idle), over 4 s of the measured interval. usage: taskcpu.sh JAR TAG PAYLOAD N [extra args]
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
jar=$1; tag=$2; p=$3; n=$4; shift 4
snap() { # pid -> "comm ticks" per task
  for t in /proc/$1/task/*; do echo "$(cat $t/comm 2>/dev/null | tr ' ' _) $(awk '{print $14+$15}' $t/stat 2>/dev/null)"; done
}
echo "== taskcpu $tag n=$n p=$p $* $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes $n --payloads $p --systems tandem-ordered --warmup 4 --measure 6 \
    --base-port 21400 "$@" 2>/dev/null | grep -E '^(tandem|jgroups)' &
sleep 1; pid=$(pgrep -f "base-port 21400" | head -1)
sleep 4.5
s0=$(snap $pid); st0=$(head -1 /proc/stat)
sleep 4
s1=$(snap $pid); st1=$(head -1 /proc/stat)
wait
python3 - "$s0" "$s1" "$st0" "$st1" <<'PY'
import sys, re, collections
def parse(s):
    d = collections.Counter()
    for line in s.strip().splitlines():
        parts = line.split()
        if len(parts) == 2: d[re.sub(r'\d+', '#', parts[0])] += int(parts[1])
    return d
a, b = parse(sys.argv[1]), parse(sys.argv[2])
tot = 0
for k in sorted(b, key=lambda k: -(b[k] - a.get(k, 0))):
    dt = b[k] - a.get(k, 0)
    tot += dt
    if dt > 0: print(f"   {dt/4:6.1f}% of a core  {k}")
print(f"   {tot/4:6.1f}% of a core  all tasks of the JVM")
f0 = list(map(int, sys.argv[3].split()[1:])); f1 = list(map(int, sys.argv[4].split()[1:]))
d = [y - x for x, y in zip(f0, f1)]; names = "user nice system idle iowait irq softirq steal".split()
print("   machine (% of 2 cores): " + ", ".join(f"{nm} {100*v/sum(d):.1f}" for nm, v in zip(names, d)))
PY
