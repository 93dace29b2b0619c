#!/usr/bin/env python3
# Inclusive method counts of jdk.ExecutionSample events from `jfr print --stack-depth 64` text: usage jfrsum.py FILE.jfr
import re, subprocess, sys, collections
txt = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "64", sys.argv[1]],
                     capture_output=True, text=True).stdout
threads, methods, n = collections.Counter(), collections.Counter(), 0
for ev in txt.split("jdk.ExecutionSample")[1:]:
    m = re.search(r'sampledThread = "([^"]*)"', ev)
    if not m: continue
    n += 1
    threads[re.sub(r'\d+', '#', m.group(1))] += 1
    seen = set()
    for line in ev.splitlines():
        line = line.strip()
        f = re.match(r'([\w.$<>]+\(.*?\))\s+line:', line)
        if f and f.group(1) not in seen:
            seen.add(f.group(1)); methods[f.group(1)] += 1
print("samples", n)
for t, c in threads.most_common(): print(f"{c:5d} {100*c/n:5.1f}% thread {t}")
for mth, c in methods.most_common(70): print(f"{c:5d} {100*c/n:5.1f}% {mth}")
