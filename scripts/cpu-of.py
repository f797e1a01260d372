#!/usr/bin/env python3
# scripts/cpu-of.py FILE CMD ARGS...: runs CMD, writes the CPU seconds
# (user + system) of it and of every process it waited for to FILE, and
# exits with CMD's status.  run-checks.sh uses it so that each suite's
# cost can be compared between machines and loads: on a loaded machine
# wall seconds grow with the load, CPU seconds far less.  Daemons a suite
# starts and leaves to init (slurmd, a detached orted) are not counted.
import os
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: cpu-of.py FILE CMD [ARGS...]")
try:
    rc = subprocess.call(sys.argv[2:])
except OSError as e:
    print("cpu-of.py: %s: %s" % (sys.argv[2], e.strerror), file=sys.stderr)
    rc = 127
t = os.times()
with open(sys.argv[1], "w") as f:
    f.write("%.0f\n" % (t.children_user + t.children_system))
sys.exit(rc if rc >= 0 else 128 - rc)
