#!/usr/bin/env python3
# Self (top-frame) counts and top-3-frame counts of jdk.ExecutionSample events: usage jfrself.py FILE.jfr
import re, subprocess, sys, collections
txt = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "8", sys.argv[1]],
                     capture_output=True, text=True).stdout
top, n = collections.Counter(), 0
for ev in txt.split("jdk.ExecutionSample")[1:]:
    frames = [f.group(1) for f in re.finditer(r'\n\s+([\w.$<>]+)\(.*?\)\s+line:', ev)]
    if not frames: continue
    n += 1
    top[" < ".join(f.rsplit('.', 2)[-2] + '.' + f.rsplit('.', 1)[-1] for f in frames[:3])] += 1
print("samples", n)
for k, c in top.most_common(45): print(f"{c:4d} {100*c/n:5.1f}% {k}")
