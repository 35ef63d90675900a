"""Limits (LIMITS.md, PROTOCOL.md §6.4, §7.3, §8): a full session (by screens, by bytes as LIMITS.md counts them),
SESSIONS over 2000, a presenter whose queue in the daemon overflowed."""

import os
import time

import zmq

from fields import field_bounds
from flowd_client import Connection, UIModel, connect
from harness import KINDS, Presenter, check, is_int, running, section
from roles import assignment

# The movie file's first UI: app, dashboard, the three tabs' stacks, two lists, Trending's pages and its two pages.
FIRST_UI_SCREENS = 10


def presenter(run, session="default", name="foreign-tui", **options):
    pr = Presenter(Connection(run.ctx, run.control, **options), session)
    pr.conn.hello("presenter", name, heartbeat_ms=60000)
    result = pr.sync(0)
    pr.take_snapshot(result["seq"])
    pr.report_all_visible()
    return pr


def full_session(flowd, flow_file):
    section("limits: a session at max_session_screens takes no step until it shrinks (LIMITS.md)")
    bound = FIRST_UI_SCREENS + 3  # a deep link's movie is pushed in the three tabs (every flow that handles it)
    with running(flowd, flow_file, config={"daemon": {"max_session_screens": bound}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        st = connect(run.ctx, run.control, "stepper", "foreign-services", serves=KINDS)
        wishlist = st.expect_type("ATTACH", session="default", kind="movies.wishlist")["attachment"]
        pr = presenter(run)
        check(len(pr.ui.screens) == FIRST_UI_SCREENS, "the movie file's first UI", sorted(pr.ui.screens))
        op.request("DEEPLINK", {"session": "default", "step": {"name": "movieIsPicked", "payload": 1}})
        while pr.ui.seq < op.request("SESSIONS")["sessions"][0]["seq"]:
            pr.next_command()
        check(len(pr.ui.screens) == bound, "the session holds max_session_screens screens", sorted(pr.ui.screens))
        check_figures(op, pr, "at max_session_screens", {"screens": bound})
        error = op.request_error("DEEPLINK", {"session": "default", "step": {"name": "movieIsPicked", "payload": 2}},
                                 "sessionFull")
        check(error["type"] == "DEEPLINK", "sessionFull's ERROR", error)
        # The wishlist's list may step while covered (allowStepWhenNotPresented in the movie file).
        step = {"session": "default", "attachment": wishlist, "step": {"name": "movieIsPicked", "payload": 3}}
        req = st.take_req()
        for _ in range(2):  # neither applied nor remembered: sent again, it is judged again
            verdict = st.request("STEP", step, req=req)
            check(verdict == {"accepted": False, "reason": "sessionFull"}, "a STEP at the bound", verdict)
        counters = op.request("HEALTH")["counters"]
        check(counters["steps_dropped"].get("sessionFull") == 2 and counters["errors"].get("sessionFull") == 1,
              "HEALTH counts the refusals", counters["steps_dropped"], counters["errors"])
        # The person goes back from the movie: a REPORT is taken at the bound, and the session shrinks.
        before = pr.ui.visible()
        removed = pr.ui.apply({"op": "pop", "target": "wishlist.stack"})
        pr.conn.request("REPORT", {"session": "default", "reports": pr.ui.reports(before, removed)})
        verdict = st.request("STEP", step, req=req)
        check(verdict == {"accepted": True}, "the step sent again once the session shrank is carried out", verdict)
        command = pr.next_command()
        check(command["op"] == "push" and command["screen"]["id"] == "wishlist.movie.3", "the movie's push", command)
        field_bounds(run, op, st, pr)
        assignment(run, op, st)


def json_bytes(value):
    """What a screen's data counts (LIMITS.md, "One session's size"): 8 bytes a JSON value, plus the UTF-8 bytes of
    its strings and of its objects' keys."""
    if isinstance(value, str):
        return 8 + len(value.encode())
    if isinstance(value, list):
        return 8 + sum(json_bytes(v) for v in value)
    if isinstance(value, dict):
        return 8 + sum(len(k.encode()) + json_bytes(v) for k, v in value.items())
    return 8


def ui_bytes(ui):
    """What a UI counts against max_session_ui_bytes (LIMITS.md): 32 bytes a screen, its ID's and type's UTF-8 bytes
    (a type left out is the kind's name), and its data."""
    total = 0
    for entry in ui.screens.values():
        screen = entry["screen"]
        total += 32 + len(screen["id"].encode()) + len(screen.get("type", screen["kind"]).encode())
        total += json_bytes(screen.get("data"))
    return total


FIGURES = ["screens", "ui_bytes", "attachments", "outbox_commands", "outbox_bytes"]


def check_figures(op, pr, what, bounds=None):
    """SESSIONS' figures of the default session (PROTOCOL.md §7.3) against this client's own count of its UI (LIMITS.md's
    formula), and HEALTH's largest figures (§7) no smaller; `bounds`: settings HEALTH's session_bounds must show."""
    summary = next(s for s in op.request("SESSIONS")["sessions"] if s["id"] == "default")
    check(all(is_int(summary[k]) for k in FIGURES), "SESSIONS' five figures " + what, summary)
    check(summary["screens"] == len(pr.ui.screens) and summary["ui_bytes"] == ui_bytes(pr.ui),
          "SESSIONS' screens and ui_bytes are this client's count " + what, summary, len(pr.ui.screens), ui_bytes(pr.ui))
    # A young session's outbox holds every command (far from outbox_limit, 1024, and outbox_bytes_limit, 1 MiB).
    check(summary["attachments"] == summary["steppers"] and summary["outbox_commands"] == summary["seq"]
          and 0 < summary["outbox_bytes"] <= 1 << 20, "SESSIONS' attachments and outbox " + what, summary)
    health = op.request("HEALTH")
    check(all(health["session_usage_max"][k] >= summary[k] for k in FIGURES),
          "HEALTH's session_usage_max is no smaller " + what, health["session_usage_max"], summary)
    check(set(health["session_bounds"]) == set(FIGURES)
          and all(health["session_bounds"][k] == v for k, v in (bounds or {}).items()),
          "HEALTH's session_bounds " + what, health["session_bounds"])


def ui_bytes_bound(flowd, flow_file):
    section("limits: a session whose UI counts max_session_ui_bytes takes no step, counted as LIMITS.md counts")

    def pick(run, op, pr, movie, refused=False):
        body = {"session": "default", "step": {"name": "movieIsPicked", "payload": movie}}
        if refused:
            return op.request_error("DEEPLINK", body, "sessionFull")
        op.request("DEEPLINK", body)
        while pr.ui.seq < op.request("SESSIONS")["sessions"][0]["seq"]:
            pr.next_command()
        return None

    # What the UI counts after each movie, until it counts 1024 (the least bound) or more.
    counts = []
    with running(flowd, flow_file) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        pr = presenter(run)
        counts.append(ui_bytes(pr.ui))
        while counts[-1] < 1024:
            pick(run, op, pr, len(counts))
            counts.append(ui_bytes(pr.ui))
    movies = len(counts) - 1
    # At a bound of exactly that count the next movie is refused; one byte more and it is taken.
    for bound, taken in ((counts[-1], False), (counts[-1] + 1, True)):
        with running(flowd, flow_file, config={"daemon": {"max_session_ui_bytes": bound}}) as run:
            op = connect(run.ctx, run.control, "operator", "foreign-operator")
            pr = presenter(run)
            for movie in range(1, movies + 1):
                pick(run, op, pr, movie)
            check(ui_bytes(pr.ui) == counts[-1], "the same UI", ui_bytes(pr.ui), counts)
            check_figures(op, pr, "with %d movies" % movies, {"ui_bytes": bound, "screens": 20000})
            if taken:
                pick(run, op, pr, movies + 1)
                check(ui_bytes(pr.ui) > counts[-1], "under the bound by a byte, a movie is taken", ui_bytes(pr.ui))
            else:
                error = pick(run, op, pr, movies + 1, refused=True)
                check("daemon.max_session_ui_bytes" in error["message"], "the ERROR names the bound", error)
                counters = op.request("HEALTH")["counters"]
                check(counters["errors"].get("sessionFull") == 1, "HEALTH counts the refusal", counters["errors"])

    # One command larger than the bound (a setStack of two pages of 3000 bytes' text) is carried out: the check is made
    # before a step, and the session is under the bound then. The steps after it are refused.
    large = os.path.join(os.path.dirname(os.path.abspath(__file__)), "large.flows.yaml")
    with running(flowd, large, config={"daemon": {"max_session_ui_bytes": 1024}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        pr = presenter(run)
        before = ui_bytes(pr.ui)
        body = {"session": "default", "step": {"name": "pagesAreOpened", "payload": {"n": 1, "text": "x" * 3000}}}
        op.request("DEEPLINK", body)
        while pr.ui.seq < op.request("SESSIONS")["sessions"][0]["seq"]:
            pr.next_command()
        check(before < 1024 and ui_bytes(pr.ui) - before > 2 * 3000 > 1024, "the large command was carried out",
              before, ui_bytes(pr.ui))
        check_figures(op, pr, "over the bound", {"ui_bytes": 1024})
        body["step"]["payload"] = {"n": 2, "text": "y"}
        op.request_error("DEEPLINK", body, "sessionFull")


def many_sessions(flowd, flow_file):
    section("limits: SESSIONS pages over more than 2000 sessions (§7.3)")
    count = 2100
    with running(flowd, flow_file) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        ids = ["s-%04d" % i for i in range(count)]
        for start in range(0, count, 300):
            replies = op.pipeline("CREATE_SESSION", [{"session": i} for i in ids[start:start + 300]])
            check(all(r == ("OK", {"created": True}) for r in replies), "created", replies[:3])
        check(op.request("HEALTH")["sessions"] == count + 1, "every session and default")
        page = op.request("SESSIONS")
        listed = [s["id"] for s in page["sessions"]]
        check(listed == (["default"] + ids)[:500] and page["next"] == listed[-1], "a page is 500 by default",
              len(listed), page.get("next"))
        page = op.request("SESSIONS", {"limit": 5000})
        check(len(page["sessions"]) == 2000 and page["next"] == ids[1998], "a limit above 2000 is 2000",
              len(page["sessions"]), page.get("next"))
        pages, after = [], None
        while True:
            body = {"prefix": "s-", "limit": 2000}
            if after is not None:
                body["after"] = after
            page = op.request("SESSIONS", body)
            pages.append([s["id"] for s in page["sessions"]])
            if "next" not in page:
                break
            after = page["next"]
        check([len(p) for p in pages] == [2000, 100] and sum(pages, []) == ids, "every session, once, in order",
              [len(p) for p in pages])
        op.request_error("SESSIONS", {"limit": -1}, "malformedBody")

        section("limits: a late stepper gets every waiting ATTACH once, dropped ones offered again (§5.1)")
        # Each movie session has six remote attachments: login.app, the wishlist's two, watched, trending, castList.
        expected = 6 * (count + 1)
        st = connect(run.ctx, run.control, "stepper", "foreign-services", serves=KINDS)
        seen = {}
        while len(seen) < expected:
            t, body = st.receive()
            if t == "ATTACH":
                key = (body["session"], body["attachment"])
                check(key not in seen, "every ATTACH once", key)
                seen[key] = body
        per_session = {}
        for session, attachment in seen:
            per_session.setdefault(session, []).append(attachment)
        check(all(len(a) == 6 for a in per_session.values()), "six each")
        # Batches go in attachment order; an ATTACH dropped at the high-water mark comes again in a later batch.
        dropped = op.request("HEALTH")["counters"]["sends_dropped"].get("ATTACH", 0)
        check(dropped > 0 or all(a == sorted(a) for a in per_session.values()), "in attachment order", dropped)


def overflowing_presenter(flowd, flow_file):
    section("gaps: a presenter that stops reading misses commands, then SYNCs and catches up (§6.3, §6.4)")
    with running(flowd, flow_file, args=["--heartbeat-ms", "200"],
                 config={"sockets": {"send_high_water_mark": 100}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        pr = presenter(run, options={zmq.RCVHWM: 1})
        # It stops reading; deep links push a movie each until the daemon counts a COMMAND it could not queue.
        movie = 0

        def dropped():
            return op.request("HEALTH")["counters"]["sends_dropped"].get("COMMAND", 0)

        while dropped() == 0:
            check(movie < 5000, "a COMMAND dropped within 5000 deep links", movie)
            replies = op.pipeline("DEEPLINK", [{"session": "default", "step": {"name": "movieIsPicked",
                                                                                "payload": movie + i}}
                                               for i in range(50)])
            check(all(t == "OK" for t, _ in replies), "the deep links are served meanwhile", replies[:2])
            movie += 50
        op.pipeline("DEEPLINK", [{"session": "default", "step": {"name": "movieIsPicked", "payload": 100000 + i}}
                                 for i in range(20)])
        target = op.request("SESSIONS")["sessions"][0]["seq"]
        check(op.request("HEALTH")["peers"]["presenter"] == 1, "the stuck presenter stays connected")
        # It reads again: what was queued, in order; then a gap or a HEARTBEAT above its seq makes it SYNC.
        applied, syncs = [], []
        sync_req, waiting, through, announced = None, False, 0, None
        window = 3 * pr.conn.welcome["heartbeat_ms"] / 1000.0  # the daemon's liveness window (§6.4)

        def resync():
            syncs.append(pr.ui.seq)
            req = pr.conn.take_req()
            pr.conn.send("SYNC", {"req": req, "session": "default", "last_seq": pr.ui.seq, "create": False})
            return req

        while pr.ui.seq < target:
            check(len(syncs) <= 20, "caught up within 20 SYNCs", syncs)
            t, body = pr.conn.receive()
            late = announced is not None and time.monotonic() - announced > window
            if t == "COMMAND" and body["seq"] == pr.ui.seq + 1:
                pr.ui.apply(body["command"])
                pr.ui.seq = body["seq"]
                applied.append(body["seq"])
                pr.conn.send("ACK", {"session": "default", "seq": body["seq"]})
                waiting = waiting and pr.ui.seq < through
            elif t == "OK" and body.get("req") == sync_req:
                if body["result"]["mode"] == "snapshot":
                    pr.take_snapshot(body["result"]["seq"])
                through, announced = body["result"]["seq"], time.monotonic()
                waiting = pr.ui.seq < through
            elif (not waiting or late) and (t == "COMMAND" and body["seq"] > pr.ui.seq + 1 or t == "HEARTBEAT"
                                            and body["sessions"].get("default", 0) > pr.ui.seq):
                # A gap, or a HEARTBEAT above what was applied (while a SYNC's answer or replay is awaited: once
                # the window is over, as they may have been dropped in turn).
                sync_req, waiting, through, announced = resync(), True, 0, time.monotonic()
        check(applied == sorted(set(applied)), "no command applied twice, in seq order")
        check(syncs, "the presenter had to SYNC", syncs)
        counters = op.request("HEALTH")["counters"]
        check(counters["sends_dropped"]["COMMAND"] >= 1, "sends_dropped counts COMMANDs", counters["sends_dropped"])
        kept = (pr.ui.root, {k: v["children"] for k, v in pr.ui.screens.items()})
        result = pr.sync(0)
        check(result == {"seq": target, "mode": "snapshot"}, "nothing sequenced meanwhile; last_seq 0: a snapshot",
              result)
        pr.ui = UIModel()
        if result["mode"] == "snapshot":
            pr.take_snapshot(result["seq"])
        while pr.ui.seq < target:
            pr.next_command(report=False)
        check((pr.ui.root, {k: v["children"] for k, v in pr.ui.screens.items()}) == kept,
              "the UI it caught up to is the daemon's")
        check(op.request("HEALTH")["peers"]["presenter"] == 1, "the presenter is still connected")
