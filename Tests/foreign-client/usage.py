"""What each session holds against its bounds across a restart (PROTOCOL.md §7 `HEALTH`'s `session_usage_max`, §7.3
a summary's figures): a hosted session, one deep-linked and left to hibernate, and the untouched default one, after
a SIGKILL and after a SIGTERM."""

import signal

from flowd_client import connect
from harness import Presenter, check, running, section, wait_until
from limits import FIGURES


def rows(op):
    """Each session's summary (§7.3) by ID: its figures, seq and flows."""
    return {s["id"]: {k: s[k] for k in FIGURES + ["seq", "flows"]} for s in op.request("SESSIONS")["sessions"]}


def largest(summaries):
    """§7: "the largest of each figure over the sessions, each maybe another session's"."""
    return {k: max(s[k] for s in summaries.values()) for k in FIGURES}


def hibernated(op):
    return op.request("HEALTH")["counters"].get("sessions_hibernated", {})


def usage_across_restarts(flowd, flow_file):
    section("usage: a session's figures are those it held before a restart, in SESSIONS and HEALTH (§7, §7.3)")
    with running(flowd, flow_file, config={"daemon": {"hibernate_after_s": 1}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        # sleepy: two movies picked, then left to hibernate; held: hosted, a movie picked while its presenter reads.
        op.request("CREATE_SESSION", {"session": "sleepy"})
        for n in (1, 2):
            op.request("DEEPLINK", {"session": "sleepy", "step": {"name": "movieIsPicked", "payload": n}})
        pr = Presenter(connect(run.ctx, run.control, "presenter", "foreign-holder"), "held")
        pr.take_snapshot(pr.sync(0, create=True)["seq"])
        pr.report_all_visible()
        op.request("DEEPLINK", {"session": "held", "step": {"name": "movieIsPicked", "payload": 3}})
        while pr.ui.seq < rows(op)["held"]["seq"]:
            pr.next_command()
        # default and sleepy have no presenter: they hibernate (§7's counters.sessions_hibernated); held does not.
        wait_until("default and sleepy hibernated", lambda: hibernated(op).get("now") == 2)
        before = rows(op)
        check(set(before) == {"default", "held", "sleepy"}, "three sessions", before)
        check(before["sleepy"]["screens"] > before["default"]["screens"], "sleepy shows the movies picked", before)
        check(op.request("HEALTH")["session_usage_max"] == largest(before),
              "HEALTH's largest figures are the rows' largest, hibernated sessions counted as they were", before)

        for sig in (signal.SIGKILL, signal.SIGTERM):
            run.stop(sig)
            run.start()
            op.request_error("HEALTH", {}, "notWelcome")
            op.hello("operator", "foreign-operator")
            name = signal.Signals(sig).name
            # A session the restart left pending is made for its row (§7.3): the same figures as before.
            check(rows(op) == before, "every session's figures, seq and flows as before the " + name, before)
            check(op.request("HEALTH")["session_usage_max"] == largest(before),
                  "HEALTH's largest figures as before the " + name)
            # held's presenter is on the old connection, unknown to this daemon: now all three hibernate.
            woken = hibernated(op).get("woken", 0)
            wait_until("all three hibernated after the " + name, lambda: hibernated(op).get("now") == 3)
            check(rows(op) == before, "hibernated again, each listed as it was (§7.3)", before)
            check(op.request("HEALTH")["session_usage_max"] == largest(before),
                  "HEALTH counts the hibernated sessions as they were saved (§7)")
            check(hibernated(op).get("woken", 0) == woken, "listing and HEALTH woke nothing", hibernated(op))
        # The presenter comes back with its last seq: a replay of nothing, since it missed nothing (§6.1).
        pr.conn.close()
        pr.conn = connect(run.ctx, run.control, "presenter", "foreign-holder")
        result = pr.sync(pr.ui.seq)
        check(result == {"seq": before["held"]["seq"], "mode": "replay"}, "SYNC with its last seq", result, pr.ui.seq)
        pr.conn.request("REPORT", {"session": "held", "reports": []})
        check(not [b for t, b in pr.conn.inbox if t in ("COMMAND", "SNAPSHOT")], "nothing sent again", pr.conn.inbox)
        for conn in (pr.conn, op):
            conn.close()
