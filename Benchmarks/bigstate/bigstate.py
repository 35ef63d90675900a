"""Benchmarks/bigstate: a flowd with a big, bounded state, through real processes (not run by tests).

Creates SESSIONS sessions and deep-links each STEPS times with a PAYLOAD-byte text, so each session's outbox fills to
`daemon.outbox_bytes_limit` (1 MiB by default) and its `state` record is about that big. Then, with no presenter,
every session hibernates (`hibernate_after_s` 5; the sessions are filled one after another, then stepped once
each, so they come due together): an operator's `HEALTH` round trips, sent one after another, show how
long flowd's loop is held (the longest wait is about the longest tick). Then SIGKILL and a restart: the time to bind,
to the first `WELCOME`, to every pending session made (`sessions_pending` 0), and the longest `HEALTH` wait meanwhile.
Prints flowd's RSS and the state directory's files at each stage.

argv: flowd [sessions=200] [steps=260] [payload=4000]; BIGSTATE_KEEP=<folder> keeps a copy of the state killed.
"""
import os, signal, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "foreign-client"))
from flowd_client import connect
from harness import Run

FLOWD = sys.argv[1]
SESSIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
STEPS = int(sys.argv[3]) if len(sys.argv) > 3 else 260
PAYLOAD = int(sys.argv[4]) if len(sys.argv) > 4 else 4000
FLOWS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bigstate.flows.yaml")
CONFIG = {"daemon": {"max_sessions": SESSIONS + 2, "hibernate_after_s": 5}}


def rss_mb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024


def state_files(d):
    return [(n, os.path.getsize(os.path.join(d, n))) for n in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, n))]


def stage(run, op, label, t0):
    h = op.request("HEALTH")
    hib = h.get("counters", {}).get("sessions_hibernated", {})
    files = state_files(run.state_dir)
    print("%-10s t=%7.1fs rss=%7.1fMB sessions=%s pending=%s hibernated=%s state=%.1fMB %s" % (
        label, time.time() - t0, rss_mb(run.process.pid), h.get("sessions"), h.get("sessions_pending"),
        hib.get("now"), sum(s for _, s in files) / 1e6, files), flush=True)
    return h


def health_waits(op, done, limit_s=600):
    """HEALTH round trips one after another until done(health) or limit_s; returns (seconds, longest, count)."""
    start = time.time(); longest = 0.0; count = 0
    while time.time() - start < limit_s:
        sent = time.time()
        h = op.request("HEALTH")
        longest = max(longest, time.time() - sent); count += 1
        if done(h):
            break
    return time.time() - start, longest, count


run = Run(FLOWD, FLOWS, config=CONFIG)
t0 = time.time()
try:
    op = connect(run.ctx, run.control, "operator", "bigstate-operator")
    op.timeout_s = 600  # a compaction's I/O-thread part saves every changed session: seconds in debug
    print("flowd pid %d %s; %d sessions x %d steps x %d bytes" % (run.process.pid, FLOWD, SESSIONS, STEPS, PAYLOAD))
    names = ["s%05d" % i for i in range(SESSIONS)]
    for t, r in op.pipeline("CREATE_SESSION", [{"session": n} for n in names]):
        assert t == "OK", r
    stage(run, op, "created", t0)
    filler = "x" * PAYLOAD
    slowest = 0.0
    def deep_links(bodies):
        global slowest
        for start in range(0, len(bodies), 200):  # within the peer's queue: a reply over it is dropped (LIMITS.md)
            sent = time.time()
            for t, r in op.pipeline("DEEPLINK", bodies[start:start + 200]):
                assert t == "OK", r
            slowest = max(slowest, time.time() - sent)
    for index, name in enumerate(names):  # each session's outbox filled, a session at a time
        deep_links([{"session": name, "step": {"name": "itemIsShown", "payload": "%d %s" % (step, filler)}}
                    for step in range(STEPS)])
        if index % max(SESSIONS // 5, 1) == max(SESSIONS // 5, 1) - 1:
            stage(run, op, "stepped", t0)
    # Then a step each, so they all come due for hibernation together.
    deep_links([{"session": name, "step": {"name": "itemIsShown", "payload": "last %s" % filler}} for name in names])
    print("slowest pipeline of 200 DEEPLINKs: %.3f s" % slowest)
    stage(run, op, "stepped", t0)
    took, longest, count = health_waits(
        op, lambda h: h.get("counters", {}).get("sessions_hibernated", {}).get("now", 0) >= SESSIONS + 1)
    print("hibernation: all %d in %.2f s; longest HEALTH wait %.0f ms over %d round trips" % (
        SESSIONS, took, longest * 1000, count), flush=True)
    stage(run, op, "hibernated", t0)
    # Journal enough on another session for a compaction: its snapshot holds the hibernated sessions' state records,
    # so the restart keeps them pending (made in the background, a bounded slice a turn).
    snapshot = os.path.join(run.state_dir, "snapshot")
    before = os.stat(snapshot).st_ino if os.path.exists(snapshot) else None
    op.request("CREATE_SESSION", {"session": "filler"})
    for step in range(0, 40000, 100):  # a compaction starts once the journal outgrows the snapshot
        op.pipeline("DEEPLINK", [{"session": "filler", "step": {"name": "itemIsShown", "payload": "%d %s" % (n, filler)}}
                                 for n in range(step, step + 100)])
        if os.path.exists(snapshot) and os.stat(snapshot).st_ino != before:
            break
    time.sleep(1)
    stage(run, op, "compacted", t0)
    op.close()
    run.process.send_signal(signal.SIGKILL); run.process.wait()
    if os.environ.get("BIGSTATE_KEEP"):  # a copy of the state killed, to profile its recovery apart
        import shutil; shutil.copytree(run.state_dir, os.environ["BIGSTATE_KEEP"])
    t1 = time.time(); run.start(); bound = time.time() - t1
    op = connect(run.ctx, run.control, "operator", "bigstate-operator-2"); welcomed = time.time() - t1
    op.timeout_s = 600
    took, longest, count = health_waits(op, lambda h: h.get("sessions_pending", 0) == 0)
    print("restart after SIGKILL: bound %.0f ms, first WELCOME %.0f ms, all made %.0f ms after the start; "
          "longest HEALTH wait meanwhile %.0f ms over %d" % (
              bound * 1000, welcomed * 1000, (time.time() - t1) * 1000, longest * 1000, count), flush=True)
    stage(run, op, "restarted", t0)
    print("log:", [l for l in run.read_log().splitlines() if "recover" in l.lower()][-3:])
finally:
    print("flowd log:", run.read_log()[-1500:])
    run.close()
