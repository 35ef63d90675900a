"""Benchmarks/bigstate/memory.py: whether flowd's RSS falls when big sessions hibernate, and what glibc keeps (not run
by tests; needs gdb, and the right to attach to flowd).

Fills SESSIONS sessions as bigstate.py does, steps each once more (all made), waits until all hibernated, then calls
`malloc_trim(0)` in flowd from gdb: RSS at each stage, and gdb's time for the call against an attach and `getpid`.

argv: flowd sessions steps payload (LIMITS.md: 2000 1030 16)
"""
import os, subprocess, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "foreign-client"))
from flowd_client import connect
from harness import Run
FLOWD, SESSIONS, STEPS, PAYLOAD = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def rss(pid):
    for l in open("/proc/%d/status" % pid):
        if l.startswith("VmRSS:"): return int(l.split()[1]) / 1024
run = Run(FLOWD, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bigstate.flows.yaml"),
          config={"daemon": {"max_sessions": SESSIONS + 2, "hibernate_after_s": 5}})
try:
    op = connect(run.ctx, run.control, "operator", "mem"); op.timeout_s = 600
    names = ["s%05d" % i for i in range(SESSIONS)]
    op.pipeline("CREATE_SESSION", [{"session": n} for n in names])
    f = "x" * PAYLOAD
    for n in names:
        bodies = [{"session": n, "step": {"name": "itemIsShown", "payload": "%d %s" % (s, f)}} for s in range(STEPS)]
        for i in range(0, len(bodies), 200): op.pipeline("DEEPLINK", bodies[i:i + 200])
    pid = run.process.pid
    print("filled rss %.0f MB" % rss(pid), flush=True)
    last = [{"session": n, "step": {"name": "itemIsShown", "payload": "last %s" % f}} for n in names]
    for i in range(0, len(last), 200): op.pipeline("DEEPLINK", last[i:i + 200])
    print("stepped rss %.0f MB" % rss(pid), flush=True)
    while op.request("HEALTH").get("counters", {}).get("sessions_hibernated", {}).get("now", 0) < SESSIONS:
        time.sleep(0.5)
    time.sleep(1)
    print("hibernated rss %.0f MB" % rss(pid), flush=True)
    t = time.time(); subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (int)getpid()"], capture_output=True)
    print("gdb attach+getpid %.0f ms" % ((time.time() - t) * 1000))
    t = time.time()
    out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (int)malloc_trim(0)"], capture_output=True, text=True)
    print("gdb attach+malloc_trim %.0f ms" % ((time.time() - t) * 1000))
    print("malloc_trim:", [l for l in out.stdout.splitlines() if l.startswith("$")])
    print("after malloc_trim rss %.0f MB" % rss(pid), flush=True)
    h = op.request("HEALTH"); print("sessions", h.get("sessions"), "pending", h.get("sessions_pending"))
finally:
    run.close()
