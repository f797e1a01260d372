#!/usr/bin/env python3
"""minimize.py - shrinks a multi-call reproducer (FZ_TRACE=1 log of a
batch, or any file of "proc ..." blocks) to the calls it needs: drops one
call at a time while the replay still fails the same way.

    python3 tests/fuzz-bridge/minimize.py FUZZ_BRIDGE IN OUT"""
import os, re, subprocess, sys, tempfile

exe, src, dst = sys.argv[1:4]
text = open(src).read()
start = re.search(r'(?m)^# start .*\n', text)
start = start.group(0) if start else ''
blocks = ['proc ' + b for b in re.split(r'(?m)^proc ', text)[1:]]
blocks = [re.sub(r'(?m)^(?!poke|args|malloc|hostile|proc).*\n?', '', b) for b in blocks]
# a replay starts and ends MPI itself
blocks = [b for b in blocks if not re.match(r'proc MPI_(Init|Init_thread|Finalize)\n', b)]


def verdict(bs):
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
        f.write(start + ''.join(bs))
    r = subprocess.run([exe, '-log', os.environ.get('FZ_MINLOG', '/tmp/fz-min.log'), '-hang', '5', '-replay', f.name],
                       capture_output=True, text=True)
    os.unlink(f.name)
    m = re.search(r'regression \S+: (.*)', r.stdout + r.stderr)
    return m.group(1) if m else None


want = verdict(blocks)
print('full: %d calls, %s' % (len(blocks), want))
if not want:
    sys.exit(1)
# Halves first, then single calls; the last call (the finding) stays.
step = len(blocks) // 2
while step >= 1:
    i = 0
    while i < len(blocks) - 1:
        trial = blocks[:i] + blocks[i + step:] if i + step < len(blocks) else None
        if trial and verdict(trial) == want:
            blocks = trial
        else:
            i += step
    step //= 2
open(dst, 'w').write(start + ''.join(blocks))
print('minimal: %d calls -> %s' % (len(blocks), dst))
