#!/usr/bin/env python3
"""Conformance of a running flowd to docs/PROTOCOL.md, checked by a client written from that document alone.

    conformance.py FLOWD [FLOW_FILE] [--only SCENARIO,...]

Each scenario starts FLOWD (`flowd --app FLOW_FILE`, the movie demo's flow file by default) on ipc:// endpoints in a
temporary folder it removes, plays its roles against it and asserts what PROTOCOL.md and the documents it points to
(SECURITY.md, LIMITS.md, RELIABILITY.md, FLOWFILE.md) promise. Ends flowd by its pid. Exit status 0 when every check
holds. Waits are bounded waits for observable messages (generous deadlines); nothing here judges timing.

Scenarios: protocol (every role against one daemon), security (CURVE, the allow-list), limits (a full session by
screens and by bytes, SESSIONS over 2000), gaps (a presenter whose queue overflowed), time (deep link waits, idle
expiry, liveness), restart (SIGKILL and SIGTERM on the same state), journal (its writes failing, then going through
again), shares (ADAPT shared by two processes, a kept screen's new data, a hibernated session's row), usage (each
session's figures across restarts, hosted or hibernated).
"""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowd_client import connect  # noqa: E402
from harness import MAX_SESSIONS, check, running, section, wait_until  # noqa: E402
from journal import journal_unavailable  # noqa: E402
from limits import full_session, many_sessions, overflowing_presenter, ui_bytes_bound  # noqa: E402
from operators import (bad_input, deep_links, end_sessions, operator_basics, operator_sessions,  # noqa: E402
                       session_limit)
from restart import restarts  # noqa: E402
from roles import (adapt, attach_stepper, gaps, person_navigates, present_default, presenter_restarts,  # noqa: E402
                   reconnect, steps_and_dedup, subscribe_events)
from security import curve  # noqa: E402
from shares import shares  # noqa: E402
from timing import idle_expiry_and_liveness, waiting_deep_links  # noqa: E402
from usage import usage_across_restarts  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def protocol(flowd, flow_file):
    with running(flowd, flow_file, args=["--max-sessions", str(MAX_SESSIONS)]) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        operator_basics(run, op)
        events = subscribe_events(run, op)
        st, wishlist = attach_stepper(run)
        pr = present_default(run)
        sent_step = steps_and_dedup(run, st, pr, events, wishlist)
        adapt(run, st, pr, events, op, wishlist)
        gaps(run, pr)
        operator_sessions(run, op, st, pr)
        deep_links(run, op, pr)
        end_sessions(run, op, st)
        person_navigates(run, op, st)
        bad_input(run, op, st, pr)
        session_limit(run, op)
        st = reconnect(run, op, st, wishlist, sent_step)
        pr = presenter_restarts(run, op, pr)
        section("BYE: the daemon treats the peer as gone at once (§3)")
        st.send("BYE", {})
        pr.conn.send("BYE", {})
        # The BYE and the operator's HEALTH travel on two connections: ask until the BYE was handled.
        wait_until("no stepper after its BYE", lambda: op.request("HEALTH")["peers"]["stepper"] == 0)
        op.send("BYE", {})
        check(run.alive(), "flowd is still running")


SCENARIOS = [
    ("protocol", protocol),
    ("security", curve),
    ("limits", lambda flowd, flow_file: (full_session(flowd, flow_file), ui_bytes_bound(flowd, flow_file),
                                        many_sessions(flowd, flow_file))),
    ("gaps", overflowing_presenter),
    ("time", lambda flowd, flow_file: (waiting_deep_links(flowd, os.path.join(HERE, "waits.flows.yaml")),
                                       idle_expiry_and_liveness(flowd, flow_file))),
    ("restart", restarts),
    ("journal", journal_unavailable),
    ("shares", shares),
    ("usage", usage_across_restarts),
]


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i:i + 2]
    if not args:
        print(__doc__)
        return 64
    flowd = os.path.abspath(args[0])
    flow_file = os.path.abspath(args[1] if len(args) > 1 else
                                os.path.join(REPO, "Examples", "flowfiles", "movies.flows.yaml"))
    # A CI timeout's SIGTERM unwinds like a failure: each run ends its flowd and removes its folder.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.monotonic()
    for name, scenario in SCENARIOS:
        if only is not None and name not in only:
            continue
        print("=== scenario %s" % name, flush=True)
        began = time.monotonic()
        scenario(flowd, flow_file)
        print("=== scenario %s: ok (%.1f s)" % (name, time.monotonic() - began), flush=True)
    print("conformance: ok (%.1f s)" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
