"""A restart of flowd on the same state (PROTOCOL.md §3, §5.1, §5.5, §5.6, §6.1; RELIABILITY.md "Journal"): what a
stepper, a presenter and an operator are promised after a SIGKILL, after a SIGTERM, and without the state; and how
the restored attachments of a kind go to its processes (§5.1)."""

import shutil
import signal

from flowd_client import Connection, connect
from harness import KINDS, Presenter, check, running, section


def shape(node):
    """A TREE node without visibilities (a restart counts every presentable not visible until a presenter reports)."""
    return (node["flow"], node["root"]["id"], node["ready"], [s["attachment"] for s in node["steppers"]],
            [shape(child) for child in node["children"]])


def stepper_again(run, old):
    """The same stepper process on a new connection: the same name and instance, its req counter going on (§2.1)."""
    st = Connection(run.ctx, run.control)
    st.next_req = old.next_req
    st.hello("stepper", "foreign-services", instance=old.instance, serves=KINDS, adapts=True)
    return st


def restarts(flowd, flow_file):
    section("restart: SIGKILL, then flowd again on the same state (RELIABILITY.md)")
    # The question asked before the crash has its deadline counted from the restart: give a loaded machine time.
    with running(flowd, flow_file, config={"daemon": {"adapt_timeout_ms": 60000},
                                           "journal": {"compact_bytes": 4096}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        daemon = op.welcome["daemon"]
        st = connect(run.ctx, run.control, "stepper", "foreign-services", serves=KINDS, adapts=True)
        wishlist = st.expect_type("ATTACH", session="default", kind="movies.wishlist")["attachment"]
        pr = Presenter(connect(run.ctx, run.control, "presenter", "foreign-tui"), "default")
        pr.take_snapshot(pr.sync(0)["seq"])
        pr.report_all_visible()
        picked = {"session": "default", "attachment": wishlist, "step": {"name": "movieIsPicked", "payload": 5}}
        picked_req = st.take_req()
        check(st.request("STEP", picked, req=picked_req) == {"accepted": True}, "a movie picked")
        pr.next_command()
        detail = st.expect_type("ATTACH", session="default", kind="movies.detail")["attachment"]
        # An adaptation asked and not answered; a deep link the presenter does not read before the crash.
        about = {"session": "default", "attachment": wishlist, "step": {"name": "aboutIsRequired"}}
        check(st.request("STEP", about) == {"accepted": True}, "aboutIsRequired asked of the movie service")
        question = st.expect_type("ADAPT", session="default")
        op.request("DEEPLINK", {"session": "default", "step": {"name": "movieIsPicked", "payload": 6}})
        # Enough records for a state snapshot while the question is open: the session is kept as its history.
        op.pipeline("DEEPLINK", [{"session": "default", "step": {"name": "movieIsPicked", "payload": 100 + i}}
                                 for i in range(60)])
        kept = op.request("HEALTH")["counters"].get("sessions_kept_as_history", {})
        check(kept.get("notAtRest", 0) >= 1, "HEALTH counts a session kept as history, not at rest (§7)", kept)
        before = op.request("SESSIONS")["sessions"][0]
        tree = shape(op.request("TREE", {"session": "default"})["tree"]["root"])
        check(before["seq"] > pr.ui.seq, "the presenter is behind (the deep link's pushes)", before, pr.ui.seq)

        run.stop(signal.SIGKILL)
        run.start()
        # The old connections reach the new daemon, which does not know them.
        error = op.request_error("HEALTH", {}, "notWelcome")
        check(error["type"] == "HEALTH", "a connection the restarted daemon does not know", error)
        op.hello("operator", "foreign-operator")
        check(op.welcome["daemon"] == daemon, "a daemon that recovered its state keeps its ID (§3)", op.welcome)
        health = op.request("HEALTH")
        check(health["journal"]["recovered_records"] > 0 and health["journal"]["available"] is True
              and health["status"] == "ok", "HEALTH's journal after recovery", health["journal"])
        after = op.request("SESSIONS")["sessions"][0]
        check(after["seq"] == before["seq"] and after["flows"] == before["flows"], "the same session", after, before)
        check(shape(op.request("TREE", {"session": "default"})["tree"]["root"]) == tree, "the same flow tree")

        section("restart: the stepper gets its attachments, its step's verdict and the open ADAPT again (§5)")
        st.close()
        st = stepper_again(run, st)
        again = st.expect_type("ADAPT", session="default", request=question["request"])
        check(again == question, "the unanswered question is asked again, the same", again, question)
        check(st.request("STEP", picked, req=picked_req) == {"accepted": True, "duplicate": True},
              "a step sent again after the restart gets its first verdict")
        attached = {b["attachment"]: b for t, b in st.inbox if t == "ATTACH" and b["session"] == "default"}
        check(attached[wishlist]["resumed"] is True and attached[detail]["resumed"] is False,
              "ATTACH again for the same attachments; resumed where steps were carried out", attached)

        section("restart: the presenter syncs with its last_seq and gets what it missed (§6.1)")
        pr.conn.close()
        pr.conn = connect(run.ctx, run.control, "presenter", "foreign-tui")
        check(pr.conn.welcome["daemon"] == daemon, "the presenter sees the same daemon")
        result = pr.sync(pr.ui.seq)
        check(result == {"seq": before["seq"], "mode": "replay"}, "a replay of the missed commands", result)
        replayed = [pr.next_command(report=False)["screen"]["id"] for _ in range(before["seq"] - pr.ui.seq)]
        check("wishlist.movie.6" in replayed, "the deep link's pushes, replayed", replayed)
        pr.report_all_visible()
        st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "allow"})
        command = pr.next_command()
        check(command["op"] == "present" and command["screen"]["id"] == "wishlist.about", "the answer applies",
              command)

        section("restart: SIGTERM, then again; then a state directory removed: a new daemon ID (§3)")
        seq = pr.ui.seq
        run.stop(signal.SIGTERM)
        run.start()
        op.request_error("HEALTH", {}, "notWelcome")
        op.hello("operator", "foreign-operator")
        check(op.welcome["daemon"] == daemon and op.request("SESSIONS")["sessions"][0]["seq"] == seq,
              "the same daemon and seq after a SIGTERM", op.welcome)
        st.close()
        st = stepper_again(run, st)
        check(st.request("STEP", picked, req=picked_req) == {"accepted": True, "duplicate": True},
              "the verdicts survive a second restart")
        # The default session ended stays ended: a daemon creates it only on a fresh state (§4).
        op.request("END_SESSION", {"session": "default"})
        run.stop(signal.SIGTERM)
        run.start()
        op.request_error("HEALTH", {}, "notWelcome")
        op.hello("operator", "foreign-operator")
        check(op.request("SESSIONS")["sessions"] == [], "the ended default session is not brought back")
        run.stop(signal.SIGTERM)
        shutil.rmtree(run.state_dir)
        run.start()
        op.request_error("HEALTH", {}, "notWelcome")
        op.hello("operator", "foreign-operator")
        check(op.welcome["daemon"] != daemon, "a daemon without the state has a new ID", op.welcome)
        check([s["id"] for s in op.request("SESSIONS")["sessions"]] == ["default"], "a fresh state has default")
        for conn in (st, pr.conn, op):
            conn.close()
    restored_shared(flowd, flow_file)


def flushed(conn):
    """What the daemon sent `conn` before now: the reply to a request sent now comes after it (§3)."""
    nothing = {"session": "default", "attachment": 999999, "step": {"name": "movieIsPicked", "payload": 1}}
    conn.request_error("STEP", nothing, "unknownAttachment")
    return conn


def restored_shared(flowd, flow_file):
    section("restart: a kind's restored attachments wait for every process of the last run, then are shared (§5.1)")
    # A grace of ten minutes: only the second process's HELLO can end the wait within this check.
    with running(flowd, flow_file, config={"daemon": {"restart_grace_ms": 600000}}) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        names = ("fa-login", "fb-login")
        steppers = {name: connect(run.ctx, run.control, "stepper", name, serves=["login.app"]) for name in names}
        for i in range(1, 6):
            op.request("CREATE_SESSION", {"session": "s%d" % i})
        before = {name: [st.expect_type("ATTACH", kind="login.app")["attachment"] for _ in range(3)]
                  for name, st in steppers.items()}
        check(sorted(len(v) for v in before.values()) == [3, 3], "6 login.app attachments, 3 each", before)
        run.stop(signal.SIGKILL)
        run.start()
        for st in steppers.values():
            st.close()
        first = connect(run.ctx, run.control, "stepper", "fa-login", instance="fa-2", serves=["login.app"])
        check(flushed(first).kept("ATTACH") == [], "the first back gets none while fb-login is not back")
        second = connect(run.ctx, run.control, "stepper", "fb-login", instance="fb-2", serves=["login.app"])
        shares = {name: [(b["session"], b["attachment"]) for b in [st.expect_type("ATTACH", kind="login.app")
                                                                    for _ in range(3)]]
                  for name, st in (("fa-login", first), ("fb-login", second))}
        check(not set(shares["fa-login"]) & set(shares["fb-login"]), "3 each, none twice", shares)
        check(flushed(first).kept("ATTACH") == [] and flushed(second).kept("ATTACH") == [], "no more", shares)
        for conn in (first, second, op):
            conn.close()
