"""Time (PROTOCOL.md §3, §4, §7; FLOWFILE.md "Deep links"; RELIABILITY.md "Session lifecycle"): deep links waiting
for their flows, idle sessions ended, silent peers forgotten. Every wait is for an answer or a counter the daemon
shows, bounded; the daemon's own timeouts are short so that they pass within the run."""

import signal

from flowd_client import Connection, connect
from harness import KINDS, Presenter, check, is_int, running, section, wait_until

DEEP_LINK_WAIT_MS = 2000


def waiting_deep_links(flowd, waits_file):
    section("time: a deep link waits for its flows, up to daemon.deep_link_wait_ms (§7, FLOWFILE.md)")
    config = {"daemon": {"deep_link_wait_ms": DEEP_LINK_WAIT_MS}}
    with running(flowd, waits_file, config=config) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        # No home service yet: the root flow has not navigated, so it is not ready.
        error = op.request_error("DEEPLINK", {"session": "default", "uri": "waits://item/1"}, "deepLinkIncomplete")
        check("itemIsPicked" in error["message"] and "home" in error["message"] and error["type"] == "DEEPLINK",
              "deepLinkIncomplete names the step and the flow", error)
        st = connect(run.ctx, run.control, "stepper", "foreign-waits", serves=["waits.home", "waits.detail"])
        home = st.expect_type("ATTACH", session="default", kind="waits.home")
        check(home["role"] == "flow" and home["presentable"] == "home", "the root flow's ATTACH", home)
        check(st.request("STEP", {"session": "default", "attachment": home["attachment"],
                                  "step": {"name": "homeIsReady"}}) == {"accepted": True}, "the home is ready")
        # The item's detail flow is started, then its part waits for the detail service, which never steps.
        error = op.request_error("DEEPLINK", {"session": "default", "uri": "waits://item/1/part/2"},
                                 "deepLinkIncomplete")
        check("partIsPicked" in error["message"] and "2 of 2" in error["message"], "stopped at step 2 of 2", error)
        detail = st.expect_type("ATTACH", session="default", kind="waits.detail")
        tree = op.request("TREE", {"session": "default"})["tree"]["root"]
        check([c["flow"] for c in tree["children"]] == ["detail"] and tree["children"][0]["ready"] is False,
              "the steps applied before the one that waited stay applied", tree["children"])
        # The same link again: the item is shown (skipped), the part waits; the detail service steps meanwhile.
        req = op.take_req()
        op.send("DEEPLINK", {"req": req, "session": "default", "uri": "waits://item/1/part/2"})
        check(st.request("STEP", {"session": "default", "attachment": detail["attachment"],
                                  "step": {"name": "detailIsReady"}}) == {"accepted": True}, "the detail is ready")
        t, result = op.expect(lambda t, b: t in ("OK", "ERROR") and b.get("req") == req, "the waiting DEEPLINK")
        check(t == "OK" and result["result"]["applied"] == ["partIsPicked"]
              and result["result"]["skipped"] == ["itemIsPicked"] and is_int(result["result"]["navigations"]),
              "the chain goes on once the flow is ready", result)
        # A session ended while its chain waits answers unknownSession.
        op.request("CREATE_SESSION", {"session": "ends"})
        req = op.take_req()
        op.send("DEEPLINK", {"req": req, "session": "ends", "uri": "waits://item/1"})
        op.request("END_SESSION", {"session": "ends"})
        t, error = op.expect(lambda t, b: t in ("OK", "ERROR") and b.get("req") == req, "the ended DEEPLINK")
        check(t == "ERROR" and error["code"] == "unknownSession", "the session ended while the chain waited", error)
        errors = op.request("HEALTH")["counters"]["errors"]
        check(errors.get("deepLinkIncomplete") == 2, "HEALTH counts deepLinkIncomplete", errors)
        chain_across_a_restart(run, op, st)


def chain_across_a_restart(run, op, st):
    section("time: a chain waiting when flowd restarts is not journaled; sent again, it skips what was applied (§7)")
    op.request("CREATE_SESSION", {"session": "again"})
    home = st.expect_type("ATTACH", session="again", kind="waits.home")["attachment"]
    st.request("STEP", {"session": "again", "attachment": home, "step": {"name": "homeIsReady"}})
    op.send("DEEPLINK", {"req": op.take_req(), "session": "again", "uri": "waits://item/1/part/2"})
    st.expect_type("ATTACH", session="again", kind="waits.detail")  # the item applied; the part waits
    run.stop(signal.SIGKILL)
    run.start()
    st.close()
    st = Connection(run.ctx, run.control)
    st.hello("stepper", "foreign-waits", serves=["waits.home", "waits.detail"])
    detail = st.expect_type("ATTACH", session="again", kind="waits.detail")
    check(detail["resumed"] is False, "the detail's attachment, recovered", detail)
    op.close()
    op = connect(run.ctx, run.control, "operator", "foreign-operator")
    req = op.take_req()
    op.send("DEEPLINK", {"req": req, "session": "again", "uri": "waits://item/1/part/2"})
    check(st.request("STEP", {"session": "again", "attachment": detail["attachment"],
                              "step": {"name": "detailIsReady"}}) == {"accepted": True}, "the detail is ready")
    t, result = op.expect(lambda t, b: t in ("OK", "ERROR") and b.get("req") == req, "the DEEPLINK sent again")
    check(t == "OK" and result["result"]["applied"] == ["partIsPicked"]
          and result["result"]["skipped"] == ["itemIsPicked"], "the steps applied before the restart are skipped",
          result)
    for conn in (st, op):
        conn.close()


def idle_expiry_and_liveness(flowd, flow_file):
    section("time: idle sessions end (reason idle), hosted ones do not (§4, RELIABILITY.md)")
    with running(flowd, flow_file, args=["--idle-session-timeout-s", "1", "--heartbeat-ms", "200"]) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        check(op.welcome["heartbeat_ms"] == 200, "WELCOME's heartbeat_ms is the daemon's", op.welcome)
        st = connect(run.ctx, run.control, "stepper", "foreign-services", serves=KINDS)
        pr = Presenter(connect(run.ctx, run.control, "presenter", "foreign-keeper"), "kept")
        pr.take_snapshot(pr.sync(0, create=True)["seq"])
        op.request("CREATE_SESSION", {"session": "idle-1"})
        held = st.expect_type("ATTACH", session="idle-1", kind="login.app")["attachment"]

        def listed():
            return [s["id"] for s in op.request("SESSIONS")["sessions"]]

        wait_until("default and idle-1 ended for idleness", lambda: listed() == ["kept"])
        check(op.request("HEALTH")["counters"]["sessions_ended"] == {"idle": 2}, "sessions_ended counts idle ends")
        detached = st.expect_type("DETACH", session="idle-1", attachment=held)
        check(detached["reason"] == "sessionEnded", "its stepper processes get DETACH sessionEnded", detached)
        pr.conn.send("BYE", {})
        wait_until("the session its presenter left ended too", lambda: listed() == [])
        check(op.request("HEALTH")["counters"]["sessions_ended"] == {"idle": 3}, "three idle ends")

        section("time: heartbeats, and a silent peer forgotten after 3 of its intervals (§3)")
        st.kept("HEARTBEAT")
        beat = st.expect_type("HEARTBEAT")
        check(isinstance(beat, dict), "the daemon sends a stepper HEARTBEATs too", beat)
        silent = Connection(run.ctx, run.control)
        silent.hello("stepper", "foreign-silent", heartbeat_ms=100, serves=["movies.detail"])
        lost = op.request("HEALTH")["counters"]["peers_lost"]
        wait_until("the silent stepper counted lost", lambda: op.request("HEALTH")["counters"]["peers_lost"] > lost)
        check(op.request("HEALTH")["peers"]["stepper"] == 1, "only the silent one was forgotten")
        error = silent.request_error("HEALTH", {}, "notWelcome")
        check(error["req"] is not None, "a forgotten peer's request gets notWelcome", error)
        for conn in (silent, st, op):
            conn.close()
