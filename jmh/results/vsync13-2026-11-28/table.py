# Summarises ab-round1/2.txt (A/B/C/J at 3 and 5 members, 1 KiB and 8 KiB) and matrix.txt (J/B/C, the whole matrix):
# rates (msg/s at member 0), CPU us per message, the mean of the 2 runs per system in the A/B (the median of 2).
import re, collections, statistics
def parse(fn):
    runs = collections.defaultdict(list)  # (label, n, payload) -> [(rate, cpu)]
    label = None; cpu = {}
    for line in open(fn):
        m = re.match(r'== (\w+) ', line)
        if m: label = m.group(1); continue
        m = re.match(r'# \S+-(\d+)-(\d+): threads of this JVM used ([\d.]+) cores; ([\d.]+) us', line)
        if m: cpu[(int(m.group(1)), int(m.group(2)))] = (float(m.group(3)), float(m.group(4))); continue
        m = re.match(r'(tandem|jgroups)[\w-]*,(\d+),(\d+),(\d+),', line)
        if m:
            n, p, r = int(m.group(2)), int(m.group(3)), int(m.group(4))
            runs[(label, n, p)].append((r, cpu.get((n, p), (0, 0))))
    return runs
ab = collections.defaultdict(list)
for f in ['ab-round1.txt', 'ab-round2.txt']:
    for k, v in parse(f).items(): ab[k] += v
print('A/B (rounds 1 and 2): n payload | A runs | B runs | C runs | J runs | medians A B C J | B/A C/A | B/J C/J | CPU us/msg (medians) A B C J')
for n in (3, 5):
    for p in (1024, 8192):
        med = {}; cpu = {}; rs = {}
        for s in 'ABCJ':
            xs = ab[(s, n, p)]; rs[s] = ' / '.join(f'{r:,}' for r, _ in xs)
            med[s] = statistics.median(r for r, _ in xs); cpu[s] = statistics.median(c[1] for _, c in xs)
        f = lambda a, b: f'{a / b:.2f}' if b else 'n/a'
        print(f"| {n} | {p} | {rs['A']} | {rs['B']} | {rs['C']} | {rs['J']} | {med['A']:,.0f} | {med['B']:,.0f} | {med['C']:,.0f} | {med['J']:,.0f} | "
              f"{f(med['B'], med['A'])} | {f(med['C'], med['A'])} | **{f(med['B'], med['J'])}x** | {f(med['C'], med['J'])}x | {cpu['A']:.1f} / {cpu['B']:.1f} / {cpu['C']:.1f} / {cpu['J']:.1f} |")
mx = parse('matrix.txt')
print('\nmatrix: n payload | J | B | C | B/J | C/J | cores J B C | CPU us/msg J B C')
for n in (2, 3, 4, 5):
    for p in (64, 1024, 8192):
        (j, jc), = mx[('J', n, p)]; (b, bc), = mx[('B', n, p)]; (c, cc), = mx[('C', n, p)]
        f = lambda a, b: f'{a / b:.2f}x' if b > 1 else 'n/a'
        print(f"| {n} | {p} | {j:,} | {b:,} | {c:,} | **{f(b, j)}** | {f(c, j)} | {jc[0]:.2f} / {bc[0]:.2f} / {cc[0]:.2f} | {jc[1]:.1f} / {bc[1]:.1f} / {cc[1]:.1f} |")
