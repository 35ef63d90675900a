#!/usr/bin/env python3
"""Conformance of a running flowd to docs/PROTOCOL.md, checked by a client written from that document alone.

    conformance.py FLOWD [FLOW_FILE]

Starts FLOWD (`flowd --app FLOW_FILE`, the movie demo's flow file by default) on ipc:// endpoints in a temporary
folder it removes, plays every role against it (stepper, presenter, operator, an events subscriber, a sender of bad
input) and asserts what PROTOCOL.md promises. Ends flowd by its pid. Exit status 0 when every check holds.
Waits are bounded waits for observable messages (generous deadlines); nothing here judges timing.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowd_client import connect  # noqa: E402
from harness import Run, check, section  # noqa: E402
from operators import (bad_input, deep_links, end_sessions, operator_basics, operator_sessions,  # noqa: E402
                       session_limit)
from roles import (adapt, attach_stepper, gaps, person_navigates, present_default, presenter_restarts,  # noqa: E402
                   reconnect, steps_and_dedup, subscribe_events)

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 64
    flowd = os.path.abspath(sys.argv[1])
    flow_file = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                                os.path.join(REPO, "Examples", "flowfiles", "movies.flows.yaml"))
    started = time.monotonic()
    run = Run(flowd, flow_file)
    try:
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
        deadline = time.monotonic() + 20
        while op.request("HEALTH")["peers"]["stepper"] != 0:
            check(time.monotonic() < deadline, "no stepper after its BYE, within 20 s")
            time.sleep(0.05)
        op.send("BYE", {})
        check(run.alive(), "flowd is still running")
    except Exception:
        print("flowd's log (tail):\n" + run.read_log(), file=sys.stderr)
        raise
    finally:
        run.close()
    print("conformance: ok (%.1f s)" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
