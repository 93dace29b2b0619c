#!/usr/bin/env python3
"""mp19: per JVM GC log (-Xlog:gc) of a trials.sh round: young/full pauses after JVM uptime AFTER s, their median/max,
and the heap after each of them (MB). Usage: gcsum.py ROUNDDIR [AFTER]"""
import glob, os, re, statistics, sys
root = sys.argv[1]; after = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
pat = re.compile(r'^\[([\d.]+)s\].*GC\(\d+\) Pause (Young|Full)[^)]*\)(?: \([^)]*\))? (\d+)M->(\d+)M\((\d+)M\) ([\d.]+)ms')
for label in sorted({os.path.basename(f).split('-%')[0].rsplit('-', 1)[0] for f in glob.glob(root + '/gc/*.log')}):
    logs = sorted(glob.glob(f'{root}/gc/{label}-*.log'), key=lambda f: int(re.findall(r'(\d+)\.log$', f)[0]))
    for i, f in enumerate(logs):
        young, full, heap = [], [], []
        for line in open(f):
            m = pat.search(line)
            if not m or float(m.group(1)) < after: continue
            (young if m.group(2) == 'Young' else full).append(float(m.group(6)))
            heap.append(int(m.group(4)))
        role = 'load' if i == len(logs) - 1 else f'server{i + 1}'
        med = statistics.median(young) if young else 0
        print(f'{label:4} {role:8} young {len(young):2} median {med:6.1f} ms max {max(young, default=0):6.1f} ms '
              f'sum {sum(young):6.1f} ms full {len(full)} | heap after (MB) {heap}')
