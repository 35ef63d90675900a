"""Benchmarks/bigstate/compaction.py: how long a compaction of many big changed sessions holds flowd's loop (not run by
tests).

Creates SESSIONS sessions and fills each as bigstate.py does (STEPS deep links of PAYLOAD bytes: a state record of
about 1 MiB), then steps each once more, so every one has changed since the last snapshot. Then a `filler` session is
deep-linked until the journal outgrows the snapshot and a compaction saves all of them, while a second operator
connection sends `HEALTH` round trips one after another: the longest wait while that compaction runs is about the
longest the loop was held. Prints the compaction's log line (`io_thread_duration`, `io_thread_turns`).

argv: flowd [sessions=60] [steps=260] [payload=4000]
"""
import os, re, sys, threading, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "foreign-client"))
from flowd_client import connect
from harness import Run

FLOWD = sys.argv[1]
SESSIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 60
STEPS = int(sys.argv[3]) if len(sys.argv) > 3 else 260
PAYLOAD = int(sys.argv[4]) if len(sys.argv) > 4 else 4000
FLOWS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bigstate.flows.yaml")
CONFIG = {"daemon": {"max_sessions": SESSIONS + 2, "hibernate_after_s": 0}}


class Waits(threading.Thread):
    """HEALTH round trips one after another on their own connection; keeps (sent, seconds) of each."""

    def __init__(self, run):
        super().__init__(daemon=True)
        self.run_, self.waits, self.stop = run, [], threading.Event()

    def run(self):
        op = connect(self.run_.ctx, self.run_.control, "operator", "compaction-health")
        op.timeout_s = 600
        while not self.stop.is_set():
            sent = time.time()
            op.request("HEALTH")
            self.waits.append((sent, time.time() - sent))
            time.sleep(0.002)
        op.close()


def compactions(run):
    run.log.flush()
    with open(os.path.join(run.dir, "flowd.log"), "rb") as f:
        lines = f.read().decode("utf-8", "replace").splitlines()
    return [l for l in lines if "journal compacted into a snapshot" in l]


run = Run(FLOWD, FLOWS, config=CONFIG, args=["--log-level", "info"])
try:
    op = connect(run.ctx, run.control, "operator", "compaction-operator")
    op.timeout_s = 600
    print("flowd pid %d %s; %d sessions x %d steps x %d bytes" % (run.process.pid, FLOWD, SESSIONS, STEPS, PAYLOAD))
    names = ["s%05d" % i for i in range(SESSIONS)] + ["filler"]
    for t, r in op.pipeline("CREATE_SESSION", [{"session": n} for n in names]):
        assert t == "OK", r
    filler = "x" * PAYLOAD

    def deep_links(bodies):
        for start in range(0, len(bodies), 200):  # within the peer's queue (LIMITS.md)
            for t, r in op.pipeline("DEEPLINK", bodies[start:start + 200]):
                assert t == "OK", r

    def step(name, n):
        return {"session": name, "step": {"name": "itemIsShown", "payload": "%d %s" % (n, filler)}}

    for name in names[:-1]:
        deep_links([step(name, n) for n in range(STEPS)])
    deep_links([step(name, -1) for name in names[:-1]])  # each changed since the last snapshot
    before = len(compactions(run))
    waits = Waits(run)
    waits.start()
    started = time.time()
    n = 0
    def saved_all(line):  # the compaction that saves them all (one that started before the pass saves fewer)
        found = re.search(r"sessions_saved=(\d+)", line)
        return found is not None and int(found.group(1)) >= SESSIONS
    while not any(saved_all(l) for l in compactions(run)[before:]):  # the journal outgrows the snapshot
        deep_links([step("filler", n + i) for i in range(100)])
        n += 100
    waits.stop.set()
    waits.join()
    line = next(l for l in compactions(run)[before:] if saved_all(l))
    during = [w for s, w in waits.waits if s >= started]
    print("compaction: %d filler steps; longest HEALTH wait %.0f ms over %d round trips (median %.1f ms)" % (
        n, max(during) * 1000, len(during), sorted(during)[len(during) // 2] * 1000))
    print(" ".join(re.findall(r"(?:sessions_saved|io_thread_duration|io_thread_turns|writer_duration|"
                              r"snapshot_bytes)=\S+", line)) or line)
finally:
    run.close()
