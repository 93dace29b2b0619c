import sys, re, collections
# usage: agg.py file.txt [thread-regex] [topN]
path = sys.argv[1]; tre = re.compile(sys.argv[2] if len(sys.argv) > 2 else '.'); top = int(sys.argv[3]) if len(sys.argv) > 3 else 25
events = []; cur = None; inst = False
for line in open(path):
    s = line.strip()
    if s.endswith('{') and s.startswith('jdk.'):
        cur = {'stack': [], 'thread': '?'}; continue
    if cur is None: continue
    if s.startswith('stackTrace = ['): inst = True; continue
    if inst:
        if s == ']' or s.startswith(']'): inst = False; continue
        if s == '...': continue
        m = re.match(r'([\w.$<>/]+)\(', s)
        if m: cur['stack'].append(m.group(1))
        continue
    m = re.match(r'(eventThread|sampledThread) = "([^"]*)"', s)
    if m: cur['thread'] = m.group(2); continue
    if s == '}':
        events.append(cur); cur = None
ev = [e for e in events if tre.search(e['thread'])]
n = len(ev)
print(f"# {n} samples (of {len(events)}) matching {tre.pattern}")
byth = collections.Counter(re.sub(r'-\d+$', '', e['thread']) for e in ev)
for t, c in byth.most_common(12): print(f"thread {t:30s} {c:6d} {100*c/max(n,1):5.1f}%")
selfc = collections.Counter(e['stack'][0] if e['stack'] else '?' for e in ev)
print("## self")
for k, c in selfc.most_common(top): print(f"{100*c/n:5.1f}% {c:5d} {k}")
inc = collections.Counter()
for e in ev:
    for k in set(e['stack']): inc[k] += 1
print("## inclusive (io.tandem / netty / jdk top)")
for k, c in inc.most_common(top * 3):
    print(f"{100*c/n:5.1f}% {c:5d} {k}")
