#!/usr/bin/env python3
"""Samples every benchmark JVM's threads every PERIOD s: name, utime+stime ticks, voluntary/involuntary ctx switches."""
import os, sys, time
out, period, marker = sys.argv[1], float(sys.argv[2]), sys.argv[3]
with open(out, 'a') as f:
    while True:
        ts = time.time()
        for p in os.listdir('/proc'):
            if not p.isdigit(): continue
            try:
                cmd = open(f'/proc/{p}/cmdline', 'rb').read().split(b'\0')
            except OSError: continue
            cmd = [c.decode(errors='replace') for c in cmd]
            if not any(marker in c for c in cmd) or '-jar' not in cmd: continue
            sysname = cmd[cmd.index('--system') + 1] if '--system' in cmd else '?'
            kind = 'load' if 'load' in cmd else 'replica' + (cmd[cmd.index('--id') + 1] if '--id' in cmd else '?')
            try: tasks = os.listdir(f'/proc/{p}/task')
            except OSError: continue
            for t in tasks:
                try:
                    name = open(f'/proc/{p}/task/{t}/comm').read().strip().replace(' ', '_')
                    st = open(f'/proc/{p}/task/{t}/stat').read()
                    fields = st[st.rindex(')') + 2:].split()
                    ut, stt = int(fields[11]), int(fields[12])
                    v = nv = 0
                    for line in open(f'/proc/{p}/task/{t}/status'):
                        if line.startswith('voluntary_ctxt'): v = int(line.split()[1])
                        elif line.startswith('nonvoluntary_ctxt'): nv = int(line.split()[1])
                except (OSError, ValueError): continue
                f.write(f'{ts:.2f} {p} {sysname} {kind} {t} {name} {ut} {stt} {v} {nv}\n')
        f.flush()
        time.sleep(period)
