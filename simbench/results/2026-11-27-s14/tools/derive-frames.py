#!/usr/bin/env python3
# sim-costs-s14-frames.properties from sim-costs-s14-burst.properties (the 18:41 bench measurement): the per-turn fit less the
# base table's wake-up (wakeup.ns = 13900, which the model charges apart to a job that finds the I/O stage idle). The same
# formula CostCalibration --transport-burst applies since commit "burst: per-turn less the wake-up" (the 18:41 run predates it).
src = open('sim-costs-s14-burst.properties').read().splitlines()
out = []
for l in src:
    if l.startswith('transport.flush.ns='): l = 'transport.flush.ns=%d' % (15036 - 13900)
    elif l.startswith('transport.read.ns='): l = 'transport.read.ns=%d' % (15627 - 13900)
    out.append(l)
out.append('meta.burst.perTurn=send 15036 ns, receive 15627 ns (fit); less the wake-up the model charges apart (13900 ns) [re-derived by tools/derive-frames.py]')
open('sim-costs-s14-frames.properties', 'w').write('\n'.join(out) + '\n')
