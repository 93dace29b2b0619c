#!/usr/bin/env python3
"""hotpath9: a follower's (or any replica's) CPU per put by thread and by cause, over the measured window.
Each thread's CPU-time samples (jdk.CPUTimeSample of the window's JFR cut) are sorted into causes by their
frames (first rule that matches any frame, top of the stack first); a cause's share of a thread's samples times
the thread's measured CPU per put (threads.csv) gives its µs per put.
Usage: causes.py THREADS.csv JVM_LABEL REC.jfr   (JVM_LABEL: the csv's jvm column, e.g. r0-FOLLOWER)"""
import subprocess, sys, re, json, collections, csv
threads_csv, label, rec = sys.argv[1:4]
RULES = [  # (cause, frame substrings); checked per frame from the top of the stack down
    ('wake-ups (eventfd, unpark, futex)', ['eventFdWrite', 'LockSupport.unpark', 'Unsafe.unpark', 'LockSupport.park', 'Unsafe.park']),
    ('network syscalls (io_uring_enter)', ['ioUringEnter']),
    ('log write (pwrite)', ['pwrite', 'FileIo.writeFully']),
    ('decode', ['Connection.decode', 'KryoCodec.decode', 'readBody', 'FrameFormat.readHeader']),
    ('ack/message encode + queue', ['TcpTransport.send', 'PeerLink.offer', 'PeerLink.drain', 'KryoCodec.encode', 'writeBody']),
    ('log append (buffer, window)', ['SegmentedLog', 'NodeStorage', 'EntryWindow', 'StorageMetrics']),
    ('apply (state machine, sessions, result encode)', ['KvStateMachine', 'SequentialExecutor', 'btree', 'SessionTable', 'Completions.executed', 'KvCodec']),
    ('engine (Raft)', ['protocols.raft']),
    ('runtime loop / queues', ['NodeRuntime', 'ExecutionThread', 'jctools']),
]
def events():
    out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.CPUTimeSample', rec], capture_output=True, text=True).stdout
    return json.loads(out)['recording']['events']
def tname(ev):
    t = ev['values'].get('sampledThread') or ev['values'].get('eventThread') or {}
    return t.get('javaName') or t.get('osName') or '?'
def cause(ev):
    st = ev['values'].get('stackTrace')
    fr = [f['method']['type']['name'].replace('/', '.') + '.' + f['method']['name'] for f in (st['frames'] if st else [])]
    for f in fr:
        for c, keys in RULES:
            if any(k in f for k in keys): return c
    return 'other'
cpu = {}
for row in csv.DictReader(open(threads_csv)):
    if row['jvm'] == label: cpu[row['thread']] = cpu.get(row['thread'], 0) + float(row['us_per_put'])
by = collections.defaultdict(collections.Counter)
for ev in events(): by[tname(ev)][cause(ev)] += 1
def short(name): return re.sub(r'-r\d+(-\d+)?$', '', re.sub(r'\d+$', '', name))[:15]
total = collections.Counter()
print(f'# {rec}\n# thread: measured µs/put (threads.csv) = causes (µs/put, by share of the thread\'s CPU-time samples)')
for t, us in sorted(cpu.items(), key=lambda kv: -kv[1]):
    samples = None
    for name, cnt in by.items():
        if name[:15] == t[:15]: samples = cnt
    if us < 0.05: continue
    if not samples:
        print(f'{t}: {us:.2f}'); total['(unsampled: GC, JIT, JFR, ...)'] += us; continue
    n = sum(samples.values())
    parts = ', '.join(f'{c} {us*k/n:.2f}' for c, k in samples.most_common())
    for c, k in samples.items(): total[c] += us * k / n
    print(f'{t}: {us:.2f} = {parts}   ({n} samples)')
print('\n# by cause over the JVM (µs/put):')
for c, us in total.most_common(): print(f'  {us:6.2f}  {c}')
print(f'  {sum(total.values()):6.2f}  total')
