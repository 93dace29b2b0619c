#!/usr/bin/env python3
"""Messages per push, per send(2) and per read from counts.txt (vsync22's probe; JVM-wide, all members, 3 s)."""
import re
for line in open('counts.txt'):
    m = re.match(r'# probe tandem-ordered-(\d+)-(\d+) (.*)', line)
    if not m: continue
    n, size = int(m.group(1)), int(m.group(2))
    c = {k: int(v) for k, v in re.findall(r'(\w+)=(\d+)', m.group(3))}
    slots, pub = c['SLOTS'], c['PUBLISHES']
    sends = c['LOOP_DRAINS'] + c['DIRECT_SENDS']
    frames = c['LOOP_FRAMES'] + c['DIRECT_FRAMES']
    copies = slots * (n - 1)  # each message goes to n-1 peers
    print(f"n={n} {size} B: messages sent {slots:,}; publishes {pub:,} -> {slots/pub:.1f} messages per push; "
          f"passes {c['PASSES']:,} ({c['PASSES']/pub:.1f} per publish); region pushes {c['REGION_PUSHES']:,} "
          f"({c['REGION_PUSHES']/pub:.1f} per publish); send(2)s {sends:,} (loop {c['LOOP_DRAINS']:,}, direct {c['DIRECT_SENDS']:,}): "
          f"{frames/sends:.1f} frames, {copies/sends:.1f} messages per send; reads {c['READS']:,}: "
          f"{c['FRAMES_IN']/c['READS']:.1f} frames, {copies/c['READS']:.1f} messages per read")
