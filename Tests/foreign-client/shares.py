"""What processes of one kind share (PROTOCOL.md §5, §5.6), a screen kept in place (§6.3) and a hibernated session's
SESSIONS row (§7.3), with the application of shares.flows.yaml."""

import os

from flowd_client import connect
from harness import Presenter, check, running, section, wait_until
from limits import FIGURES, ui_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
FLOWS = os.path.join(HERE, "shares.flows.yaml")
NOTHING = {"session": "default", "attachment": 999999, "step": {"name": "itemStep"}}


def flushed(conn):
    """What the daemon sent `conn` before now: the reply to a request sent now comes after it (§3)."""
    conn.request_error("STEP", NOTHING, "unknownAttachment")
    return conn


def shares(flowd, _flow_file):
    with running(flowd, FLOWS, config={"daemon": {"hibernate_after_s": 0, "adapt_timeout_ms": 600000}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        questions_shared(run, op)
        kept_screen(run, op)
    with running(flowd, FLOWS, config={"daemon": {"hibernate_after_s": 1}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        hibernated_row(run, op)


def questions_shared(run, op):
    section("shares: ADAPT goes to the answering process with the fewest questions open, ties by name (§5.6)")
    judges = {name: connect(run.ctx, run.control, "stepper", name, serves=["shares.judge"], adapts=True)
              for name in ("jb-judge", "ja-judge")}

    def ask(n):
        op.request("DEEPLINK", {"session": "default", "step": {"name": "judged", "payload": n}})
        asked = [(name, b) for name, conn in judges.items() for b in flushed(conn).kept("ADAPT")]
        check(len(asked) == 1 and asked[0][1]["step"] == {"name": "judged", "payload": n}, "one process is asked",
              n, asked)
        return asked[0]

    # 0 and 0: ja (its name sorts first); then jb has fewer open; then 1 and 1: ja again.
    asked = [ask(n) for n in (1, 2, 3)]
    check([name for name, _ in asked] == ["ja-judge", "jb-judge", "ja-judge"], "the questions are shared in turn",
          asked)
    for name, question in asked:
        if name == "ja-judge":
            judges[name].send("ADAPTED", {"session": "default", "request": question["request"], "answer": "allow"})
    flushed(judges["ja-judge"])  # its answers are handled before the next DEEPLINK
    check(ask(4)[0] == "ja-judge", "ja, with none open against jb's one, gets the next")
    for conn in judges.values():
        conn.send("BYE", {})
        conn.close()


def kept_screen(run, op):
    section("shares: a screen a setStack lists again takes the command's data, in COMMAND and SNAPSHOT (§6.3)")
    pr = Presenter(connect(run.ctx, run.control, "presenter", "foreign-keeper"), "kept")
    pr.take_snapshot(pr.sync(0, create=True)["seq"])
    pr.report_all_visible()
    for payload in ({"v": 1}, {"v": 2, "text": "the second payload"}):
        op.request("DEEPLINK", {"session": "kept", "step": {"name": "keep", "payload": payload}})
        command = pr.next_command()
        check(command["op"] == "setStack" and command["screens"][1]["data"] == payload, "the setStack", command)
        check(pr.ui.screens["main.kept"]["screen"]["data"] == payload, "the kept screen shows the new data",
              pr.ui.screens["main.kept"])
    summary = next(s for s in op.request("SESSIONS")["sessions"] if s["id"] == "kept")
    check(summary["screens"] == len(pr.ui.screens) and summary["ui_bytes"] == ui_bytes(pr.ui),
          "SESSIONS counts the kept screen with its new data (LIMITS.md)", summary, ui_bytes(pr.ui))
    fresh = Presenter(connect(run.ctx, run.control, "presenter", "foreign-fresh"), "kept")
    pr.conn.send("BYE", {})
    wait_until("the first presenter gone", lambda: op.request("HEALTH")["peers"]["presenter"] == 1)
    result = fresh.sync(0)
    check(result["mode"] == "snapshot", "a fresh presenter gets a SNAPSHOT", result)
    snapshot = fresh.take_snapshot(result["seq"])
    def shown(ui):
        return ui.root, {k: (v["screen"], v["children"]) for k, v in ui.screens.items()}

    check(shown(fresh.ui) == shown(pr.ui), "the SNAPSHOT is the UI the commands built, the kept screen's new data "
          "included", snapshot)
    fresh.conn.send("BYE", {})


def hibernated_row(run, op):
    section("shares: a hibernated session is listed as it was, not woken; its attachments count for their process "
            "(§7.3, §5)")
    aa = connect(run.ctx, run.control, "stepper", "aa-items", serves=["shares.item"])
    op.request("CREATE_SESSION", {"session": "sleepy"})
    for n in (1, 2):
        op.request("DEEPLINK", {"session": "sleepy", "step": {"name": "open", "payload": n}})
        aa.expect_type("ATTACH", session="sleepy", presentable="item.%d" % n)

    def row(session):
        return next(s for s in op.request("SESSIONS")["sessions"] if s["id"] == session)

    def hibernated():
        return op.request("HEALTH")["counters"].get("sessions_hibernated", {})

    before = row("sleepy")
    check(before["attachments"] == 3 and before["screens"] == 4, "sleepy's figures", before)
    wait_until("default and sleepy hibernated", lambda: hibernated().get("now") == 2)
    for _ in range(2):
        check(row("sleepy") == before, "listed as it was when it hibernated, again and again", before)
    check(hibernated().get("woken", 0) == 0, "listing woke nothing", hibernated())
    check(op.request("HEALTH")["session_usage_max"] == {k: before[k] for k in FIGURES},
          "HEALTH's largest figures count a hibernated session as it was saved (§7): sleepy's", before)
    zz = connect(run.ctx, run.control, "stepper", "zz-items", serves=["shares.item"])
    op.request("CREATE_SESSION", {"session": "awake"})
    for n in (1, 2):
        op.request("DEEPLINK", {"session": "awake", "step": {"name": "open", "payload": n}})
        zz.expect_type("ATTACH", session="awake", presentable="item.%d" % n)
    check(not [b for b in flushed(aa).kept("ATTACH") if b["session"] == "awake"],
          "aa holds sleepy's two, hibernated: awake's go to zz, holding none")
    for conn in (aa, zz):
        conn.send("BYE", {})
        conn.close()
