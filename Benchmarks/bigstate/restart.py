"""Benchmarks/bigstate/restart.py: the same kept state recovered by several flowd binaries, alternately (not run by
tests).

argv: state-folder flowd... ; the state folder is one bigstate.py kept (BIGSTATE_KEEP=<folder>). Each round starts
each binary on a fresh copy of it and prints how long it took to bind its control socket (flowd binds after recovery).
ROUNDS (default 3) rounds.
"""
import os, shutil, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "foreign-client"))
from harness import Run

STATE, BINARIES = sys.argv[1], sys.argv[2:]
FLOWS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bigstate.flows.yaml")
for _ in range(int(os.environ.get("ROUNDS", "3"))):
    for flowd in BINARIES:
        run = Run(flowd, FLOWS, config={"daemon": {"max_sessions": 100000, "hibernate_after_s": 5}}, start=False)
        try:
            shutil.copytree(STATE, run.state_dir)
            started = time.time()
            run.start()
            print("%s bound after %.0f ms" % (flowd, (time.time() - started) * 1000), flush=True)
        finally:
            run.close()
