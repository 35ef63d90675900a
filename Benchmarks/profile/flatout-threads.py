#!/usr/bin/env python3
"""Per-thread CPU of a run's server and its two clients over flowd-bench's throughput phase: which thread is busy flat
out (docs/PERFORMANCE.md, *Re-listing the same children*).

A `--phase-command`: at `start` it reads /proc/<pid>/task/*/stat (user and system ticks) of the server's pid and of
the processes beside it (same parent: the stepper and the presenter) and leaves a sampler reading them every 50 ms,
since the clients may have exited when `end` runs; `end` stops it and appends one table a run to $THREAD_CPU_OUT
(default /tmp/flatout-threads.log): each thread's share of one CPU over the phase, and each process's.

    THREAD_CPU_OUT=/tmp/t.log flowd-bench --systems flowd --clients wire --transport ipc --repeat 1 \
        --phase-command Benchmarks/profile/flatout-threads.py
"""
import os, sys, time, json
phase, pid = sys.argv[1], int(sys.argv[2])
out = os.environ.get("THREAD_CPU_OUT", "/tmp/flatout-threads.log")
base = f"/tmp/flatout-threads-{pid}"
hz = os.sysconf("SC_CLK_TCK")
def ppid(p):
    with open(f"/proc/{p}/stat") as f: return int(f.read().rsplit(")", 1)[1].split()[1])
def cmd(p):
    with open(f"/proc/{p}/cmdline", "rb") as f: a = f.read().split(b"\0")
    return (a[1] if len(a) > 1 else a[0]).decode()
def _safe(f):
    try: return f()
    except Exception: return None
def snap(parent, into):
    for p in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        if _safe(lambda: ppid(p)) != parent: continue
        role = _safe(lambda: cmd(p)) or "?"
        if role not in ("daemon", "stepper", "presenter", "relay", "c-relay"): continue
        for t in _safe(lambda: os.listdir(f"/proc/{p}/task")) or []:
            try:
                with open(f"/proc/{p}/task/{t}/stat") as f: s = f.read()
            except OSError: continue
            name = s[s.index("(")+1:s.rindex(")")]
            fields = s.rsplit(")", 1)[1].split()
            into[f"{p}/{t}"] = [role, name, int(fields[11]), int(fields[12])]
if phase == "start":
    parent = ppid(pid)
    first = {}; snap(parent, first)
    json.dump({"t": time.monotonic(), "threads": first}, open(base + ".start", "w"))
    if os.fork() == 0:
        os.setsid()
        if os.fork() != 0: os._exit(0)
        os.closerange(0, 1024)
        latest = {}
        # Until `end`, or until the server is gone (a run that failed before its end).
        while not os.path.exists(base + ".stop") and os.path.exists(f"/proc/{pid}"):
            snap(parent, latest); t = time.monotonic()
            json.dump({"t": t, "threads": latest}, open(base + ".tmp", "w")); os.rename(base + ".tmp", base + ".last")
            time.sleep(0.05)
        os._exit(0)
else:
    t_end = time.monotonic()
    open(base + ".stop", "w").close()
    time.sleep(0.12)
    a = json.load(open(base + ".start")); b = json.load(open(base + ".last"))
    wall = t_end - a["t"]
    rows = []
    for k, (role, name, u, s) in b["threads"].items():
        u0, s0 = (a["threads"][k][2], a["threads"][k][3]) if k in a["threads"] else (0, 0)
        rows.append((role, k, name, (u-u0)/hz/wall, (s-s0)/hz/wall))
    rows.sort()
    with open(out, "a") as f:
        f.write(f"phase {wall:.2f} s, load {open('/proc/loadavg').read().strip()}\n")
        tot = {}
        for role, k, name, u, s in rows:
            tot[role] = tot.get(role, 0) + u + s
            if u + s < 0.01: continue
            f.write(f"  {role:10s} {name:16s} user {u*100:5.1f}%  sys {s*100:5.1f}%  total {(u+s)*100:5.1f}%\n")
        f.write("  per process: " + ", ".join(f"{r} {v*100:.1f}%" for r, v in tot.items()) + f"; all {sum(tot.values())*100:.1f}%\n")
    for x in (".start", ".last", ".stop"):
        try: os.remove(base + x)
        except OSError: pass
