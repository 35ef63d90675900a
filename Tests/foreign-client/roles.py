"""Checks of the stepper's and the presenter's side (PROTOCOL.md §3, §5, §6, §9)."""

from flowd_client import Connection, connect
from harness import KINDS, Events, Presenter, check, is_int, section


def subscribe_events(run, op):
    section("events: subscribe to nav/ (§9)")
    events = Events(run.ctx, run.events)
    event = events.await_live(op)
    check(event["session"] == "default" and isinstance(event["flow"], str) and is_int(event["coordinator"])
          and isinstance(event["text"], str), "a did event's fields", event)
    return events


def attach_stepper(run):
    section("stepper: HELLO with serves and adapts, ATTACH (§3, §5.1)")
    st = connect(run.ctx, run.control, "stepper", "foreign-services", serves=KINDS, adapts=True)
    login = st.expect_type("ATTACH", session="default", kind="login.app")
    check(login["role"] == "flow" and login["presentable"] == "app.stack" and login["resumed"] is False
          and is_int(login["attachment"]), "the root flow's login.app ATTACH", login)
    wishlist = st.expect_type("ATTACH", session="default", kind="movies.wishlist")
    check(wishlist["role"] == "contributor" and wishlist["presentable"] == "wishlist.list"
          and "context" in wishlist, "the wishlist list's ATTACH", wishlist)
    return st, wishlist["attachment"]


def present_default(run):
    section("presenter: SYNC, SNAPSHOT, REPORT, HEARTBEAT (§6.1, §6.2, §6.5, §3)")
    conn = connect(run.ctx, run.control, "presenter", "foreign-tui", heartbeat_ms=60000)
    pr = Presenter(conn, "default")
    result = pr.sync(0)
    check(result["mode"] == "snapshot", "a fresh presenter gets a snapshot", result)
    snapshot = pr.take_snapshot(result["seq"])
    check(snapshot["ui"]["root"] == "app.stack", "the movie UI's root", snapshot["ui"]["root"])
    check(snapshot["ui"]["screens"][0]["placement"] == "window", "parents before children: the root first")
    pr.report_all_visible()
    check("wishlist.list" in pr.ui.visible() and "watched.list" not in pr.ui.visible(), "the visible set",
          pr.ui.visible())
    # One sent before the SYNC names no session; the first one naming it announces the latest seq.
    beat = conn.expect(lambda t, b: t == "HEARTBEAT" and b["sessions"], "a HEARTBEAT naming the session")[1]
    check(beat["sessions"] == {"default": pr.ui.seq}, "the daemon's HEARTBEAT to a presenter", beat)
    conn.send("HEARTBEAT", {})
    return pr


def steps_and_dedup(run, st, pr, events, wishlist):
    section("STEP, COMMAND/ACK, visibility gate, USER_ACTION/ACTION, steps sent again (§5.3-§5.5, §6.3, §6.6)")
    verdict = st.request("STEP", {"session": "default", "attachment": wishlist,
                                  "step": {"name": "movieIsPicked", "payload": 23452}})
    check(verdict == {"accepted": True}, "an accepted step", verdict)
    command = pr.next_command(report=False)
    check(command == {"op": "push", "target": "wishlist.stack", "screen": {
        "id": "wishlist.movie.23452", "kind": "view", "type": "MovieDetail", "data": 23452}}, "the push", command)
    detail = st.expect_type("ATTACH", session="default", kind="movies.detail")
    check(detail["presentable"] == "wishlist.movie.23452" and detail["context"] == {"movie": 23452}
          and detail["role"] == "contributor", "the detail's ATTACH", detail)
    for kind in ("will", "did"):
        event = events.expect(lambda e: e["event"] == kind and e["step"] == {"name": "movieIsPicked",
                                                                             "payload": 23452}, kind)
        check(event["flow"] == "wishlist" and is_int(event["coordinator"]), "the %s event" % kind, event)

    # Not reported visible yet: the detail's step is dropped, and the same (instance, req) gets the same verdict.
    step = {"session": "default", "attachment": detail["attachment"], "step": {"name": "castIsPicked", "payload": 4}}
    req = st.take_req()
    first = st.request("STEP", step, req=req)
    check(first == {"accepted": False, "reason": "notVisible"}, "a step from a screen not visible", first)
    again = st.request("STEP", step, req=req)
    check(again == {"accepted": False, "reason": "notVisible", "duplicate": True}, "the same step again", again)
    drop = events.expect(lambda e: e["event"] == "drop" and e["step"]["name"] == "castIsPicked", "drop")
    check(drop["reason"] == "notVisible" and "flow" in drop and "coordinator" in drop, "the drop event", drop)

    pr.conn.request("REPORT", {"session": "default", "reports": [
        {"presentable": "wishlist.list", "state": "hidden"},
        {"presentable": "wishlist.movie.23452", "state": "visible"}]})
    delivered = pr.conn.request("USER_ACTION", {"session": "default", "presentable": "wishlist.movie.23452",
                                                "action": {"name": "pickCast", "payload": 4}})
    check(delivered == {"delivered": 1}, "USER_ACTION's OK", delivered)
    # The flow file declares MovieDetail's actions: another name is refused, with the ones it takes (§6.6).
    error = pr.conn.request_error("USER_ACTION", {"session": "default", "presentable": "wishlist.movie.23452",
                                                  "action": {"name": "pickCats", "payload": 4}}, "unknownAction")
    check("pickCats" in error["message"] and "'pickCast'" in error["message"], "unknownAction lists the actions", error)
    action = st.expect_type("ACTION", session="default", attachment=detail["attachment"])
    check(action["presentable"] == "wishlist.movie.23452" and action["action"] == {"name": "pickCast", "payload": 4},
          "the ACTION", action)
    req = st.take_req()
    check(st.request("STEP", step, req=req) == {"accepted": True}, "the cast step, now visible")
    seq_before = pr.ui.seq
    again = st.request("STEP", step, req=req)
    check(again == {"accepted": True, "duplicate": True}, "an accepted step sent again", again)
    command = pr.next_command()
    check(command["op"] == "push" and command["screen"]["id"] == "wishlist.cast.4", "the cast push", command)
    check(pr.ui.seq == seq_before + 1, "one command for the step and its duplicate")
    return detail["attachment"], step, req


def adapt(run, st, pr, events, op, wishlist):
    section("ADAPT / ADAPTED: replace, allow, refuse, bad answers (§5.6)")
    about = {"session": "default", "attachment": wishlist, "step": {"name": "aboutIsRequired"}}

    def ask():
        check(st.request("STEP", about) == {"accepted": True}, "aboutIsRequired enters the queue")
        question = st.expect_type("ADAPT", session="default")
        check(is_int(question["request"]) and question["kind"] == "movies.wishlist"
              and question["flow"] == "wishlist" and is_int(question["coordinator"])
              and question["step"] == {"name": "aboutIsRequired", "payload": None}, "the ADAPT", question)
        return question

    question = ask()
    st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "replace",
                        "step": {"name": "unauthorized", "payload": None}})
    command = pr.next_command()
    check(command["op"] == "present" and command["target"] == "wishlist.stack"
          and command["screen"]["id"] == "wishlist.alert" and command["screen"]["kind"] == "alert",
          "the replaced step's alert", command)
    # The person closes the alert (§6.5.1): dismissed, then what it covered is visible again.
    before = pr.ui.visible()
    removed = pr.ui.apply({"op": "dismiss", "target": "wishlist.stack"})
    pr.conn.request("REPORT", {"session": "default", "reports": pr.ui.reports(before, removed)})

    question = ask()
    st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "allow"})
    command = pr.next_command()
    check(command["op"] == "present" and command["screen"]["id"] == "wishlist.about", "About presented", command)
    error = pr.conn.request_error("USER_ACTION", {"session": "default", "presentable": "wishlist.about",
                                                  "action": {"name": "done", "payload": 3}}, "invalidPayload")
    check(error["type"] == "USER_ACTION" and "'done'" in error["message"], "an action's payload not of its type", error)
    delivered = pr.conn.request("USER_ACTION", {"session": "default", "presentable": "wishlist.about",
                                                "action": {"name": "done"}})
    check(delivered == {"delivered": 1}, "an in-daemon action stepper counts as delivered", delivered)
    command = pr.next_command()
    check(command == {"op": "dismiss", "target": "wishlist.stack"}, "About dismissed", command)

    question = ask()
    st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "refuse"})
    drop = events.expect(lambda e: e["event"] == "drop" and e["step"]["name"] == "aboutIsRequired", "refused")
    check(drop["reason"] == "adaptedToNone", "a refused adaptation drops the step", drop)

    # An answer to a question no longer open is dropped without a reply and counted; a bad answer is malformedBody.
    st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "allow"})
    st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "maybe"})
    bad = st.expect_type("ERROR", type="ADAPTED")
    check(bad["req"] is None and bad["code"] == "malformedBody", "an ADAPTED answer that is not one of three", bad)
    check(not [b for t, b in st.inbox if t in ("OK", "ERROR")], "the late answer got no reply", st.inbox)
    # A replace with a step the application does not declare is dropped and fails the adaptation at once.
    question = ask()
    st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "replace",
                        "step": {"name": "noSuchStep"}})
    failed = events.expect(lambda e: e["event"] == "drop" and e["reason"] == "adaptFailed", "adaptFailed")
    check(failed["step"]["name"] == "aboutIsRequired", "the adapted step is dropped, adaptFailed", failed)
    counters = op.request("HEALTH")["counters"]
    check(counters.get("adapts") == {"replace": 1, "allow": 1, "refuse": 1, "badReplacement": 1},
          "HEALTH adapts by outcome", counters.get("adapts"))
    check(counters.get("adapt_answers_dropped") == {"unknownRequest": 1, "unknownStep": 1},
          "HEALTH adapt_answers_dropped", counters.get("adapt_answers_dropped"))


def gaps(run, pr):
    section("gaps: SYNC again gets a replay, or a snapshot (§6.1, §6.4)")
    seq = pr.ui.seq
    result = pr.sync(seq - 2)
    check(result == {"seq": seq, "mode": "replay"}, "a SYNC two commands behind is a replay", result)
    replayed = [pr.conn.expect_type("COMMAND", session="default") for _ in range(2)]
    check([c["seq"] for c in replayed] == [seq - 1, seq], "the replay's commands, in order", replayed)
    pr.report_all_visible()  # already applied: nothing to apply, but the daemon counts nothing visible after a SYNC
    result = pr.sync(seq)
    check(result == {"seq": seq, "mode": "replay"}, "a SYNC with nothing missed", result)
    pr.report_all_visible()
    kept_ui = (pr.ui.root, {k: v["children"] for k, v in pr.ui.screens.items()})
    result = pr.sync(0)
    check(result["seq"] == seq, "SYNC's seq is the current one", result)
    if result["mode"] == "snapshot":
        pr.take_snapshot(seq)
    else:
        commands = [pr.conn.expect_type("COMMAND", session="default") for _ in range(seq)]
        check([c["seq"] for c in commands] == list(range(1, seq + 1)), "a whole replay, in order", commands)
    check((pr.ui.root, {k: v["children"] for k, v in pr.ui.screens.items()}) == kept_ui,
          "the snapshot is the UI the commands built", kept_ui)
    pr.report_all_visible()
    beat = pr.conn.expect(lambda t, b: t == "HEARTBEAT" and b["sessions"].get("default") == seq, "HEARTBEAT")[1]
    check(beat == {"sessions": {"default": seq}}, "the HEARTBEAT announces the latest seq", beat)
    pr.conn.kept("HEARTBEAT")


def person_navigates(run, op, st):
    section("the person navigates: another tab, back in a stack; the snapshot follows the reports (§6.5.1)")
    conn = connect(run.ctx, run.control, "presenter", "foreign-person")
    pr = Presenter(conn, "person")
    result = pr.sync(0, create=True)
    check(result["mode"] == "snapshot", "a SYNC that creates the session gets a snapshot", result)
    pr.take_snapshot(result["seq"])
    pr.report_all_visible()
    result = op.request("DEEPLINK", {"session": "person", "uri": "movies://wishlist/movie/5"})
    check(result["applied"] == ["movieIsPicked"], "the deep link in the new session", result)
    while "wishlist.movie.5" not in pr.ui.screens:
        pr.next_command()
    detail = st.expect_type("ATTACH", session="person", kind="movies.detail", presentable="wishlist.movie.5")
    check(pr.ui.visible() >= {"wishlist.stack", "wishlist.movie.5"}, "the movie is on screen", pr.ui.visible())
    # Another tab: what it leaves is hidden, what it shows visible; then back in the wishlist's stack.
    pr.conn.request("REPORT", {"session": "person", "reports": [
        {"presentable": "wishlist.stack", "state": "hidden"}, {"presentable": "wishlist.movie.5", "state": "hidden"},
        {"presentable": "watched.stack", "state": "visible"}, {"presentable": "watched.list", "state": "visible"}]})
    pr.conn.request("REPORT", {"session": "person", "reports": [
        {"presentable": "wishlist.movie.5", "state": "dismissed"}]})
    detached = st.expect_type("DETACH", session="person", attachment=detail["attachment"])
    check(detached["reason"] == "presentableDismissed", "a dismissed screen's attachment ends", detached)
    result = pr.sync(0)
    snapshot = pr.take_snapshot(result["seq"])
    entries = {e["screen"]["id"]: e for e in snapshot["ui"]["screens"]}
    check(entries["dashboard.tabs"]["selected"] == 1, "the tab bar's selected follows the tab reported visible",
          entries["dashboard.tabs"])
    check(entries["wishlist.stack"]["children"] == ["wishlist.list"] and "wishlist.movie.5" not in entries,
          "the screen the person left is gone from the UI", entries["wishlist.stack"])
    conn.send("BYE", {})
    conn.close()


def presenter_restarts(run, op, pr):
    section("a presenter restarts under its name and takes over; operators share a name (§3, §6.1)")
    again = Presenter(connect(run.ctx, run.control, "presenter", "foreign-tui"), "default")
    notice = pr.conn.expect_type("ERROR", code="replaced")
    check(notice["req"] is None and notice["type"] == "HELLO", "the old presenter is told it was replaced", notice)
    pr.conn.close()
    again.ui = pr.ui  # the same process's UI, applied up to its last seq
    result = again.sync(pr.ui.seq)
    check(result["mode"] == "replay", "it resumes with its last_seq (same daemon)", result)
    while again.ui.seq < result["seq"]:  # what it had not taken yet (the deep links' other flows' commands)
        again.next_command(report=False)
    again.report_all_visible()
    twin = connect(run.ctx, run.control, "operator", "foreign-operator")
    check(twin.request("HEALTH")["peers"]["operator"] == 2 and op.request("HEALTH")["status"] == "ok",
          "two operators of one name both answered")
    check(not [b for t, b in op.inbox if t == "ERROR"], "an operator is not replaced", op.inbox)
    twin.send("BYE", {})
    twin.close()
    return again


def reconnect(run, op, st, wishlist, sent_step):
    section("a stepper reconnects: replaced, ATTACH again (resumed), a step sent again (§3, §5.1, §5.5)")
    detail, step, req = sent_step
    again = Connection(run.ctx, run.control)
    again.next_req = st.next_req  # one counter for the process run, across connections (§2.1)
    again.hello("stepper", "foreign-services", instance=st.instance, serves=KINDS, adapts=True)
    notice = st.expect_type("ERROR", code="replaced")
    check(notice["req"] is None and notice["type"] == "HELLO", "the old connection is told it was replaced", notice)
    error = st.request_error("HEALTH", {}, "notWelcome")
    check(error["type"] == "HEALTH", "the replaced connection is forgotten", error)
    st.close()
    # The HELLO's ATTACHes were sent before the reply to the next request on this connection.
    verdict = again.request("STEP", step, req=req)
    check(verdict == {"accepted": True, "duplicate": True}, "a step sent again after a reconnect", verdict)
    attached = {b["attachment"]: b for t, b in again.inbox if t == "ATTACH" and b["session"] == "default"}
    check(attached[wishlist]["resumed"] is True and attached[detail]["resumed"] is True,
          "attachments that carried out steps are resumed", attached.get(wishlist), attached.get(detail))
    login = [b for b in attached.values() if b["kind"] == "login.app"]
    check(len(login) == 1 and login[0]["resumed"] is False, "one that never stepped is not resumed", login)
    # A step refused with an ERROR was not carried out: sent again with the same req, it is judged again.
    req = again.take_req()
    bad = {"session": "default", "attachment": 999999, "step": {"name": "movieIsPicked"}}
    for _ in range(2):
        answer = again.request_raw("STEP", bad, req=req)
        check(answer[0] == "ERROR" and answer[1]["code"] == "unknownAttachment", "judged again", answer)
    counters = op.request("HEALTH")["counters"]
    check(counters["steps_duplicate"] >= 3 and "replaced" not in counters["errors"], "HEALTH after a reconnect",
          counters)
    return again


def assignment(run, op, st):
    """`st` serves every kind as "foreign-services" (and holds every attachment so far); two more processes serve
    movies.detail, holding none."""
    section("steppers: an attachment goes to the process holding the fewest, ties by name; BYE hands it on (§5, §3)")
    op.request("CREATE_SESSION", {"session": "assign"})
    last = connect(run.ctx, run.control, "stepper", "zz-services", serves=["movies.detail"])
    first = connect(run.ctx, run.control, "stepper", "aa-services", serves=["movies.detail"])
    op.request("DEEPLINK", {"session": "assign", "step": {"name": "movieIsPicked", "payload": 1}})
    # 0 and 0: aa (its name sorts first); then zz holds fewer; then 1 and 1: aa again.
    got = sorted(first.expect_type("ATTACH", session="assign", kind="movies.detail")["attachment"] for _ in range(2))
    other = last.expect_type("ATTACH", session="assign", kind="movies.detail")["attachment"]
    check(got[0] < other < got[1], "shared in turn, the first to the name that sorts first", got, other)
    # Anything sent to the others for the deep link precedes their replies to a later request.
    for conn in (first, last, st):
        conn.request_error("STEP", {"session": "assign", "attachment": 999999, "step": {"name": "castIsPicked"}},
                           "unknownAttachment")
    check(not [b for t, b in st.inbox if t == "ATTACH" and b["kind"] == "movies.detail" and b["session"] == "assign"],
          "the busy process gets none", st.inbox)
    check(not [b for t, b in first.inbox + last.inbox if t == "ATTACH" and b["session"] == "assign"],
          "each once", first.inbox, last.inbox)
    first.send("BYE", {})
    # zz holds 1, st far more: zz takes both of aa's.
    handed = sorted(last.expect_type("ATTACH", session="assign", kind="movies.detail")["attachment"] for _ in range(2))
    check(handed == got, "after its BYE, the one holding the fewest gets its attachments", handed, got)
    # §5: an attachment stays with its process; one connecting later, holding none, does not take it.
    later = connect(run.ctx, run.control, "stepper", "aa-later", serves=["movies.detail"])
    later.request_error("STEP", {"session": "assign", "attachment": handed[0], "step": {"name": "castIsPicked"}},
                        "unknownAttachment")
    check(not [b for t, b in later.inbox if t == "ATTACH" and b["session"] == "assign"], "a later process takes none",
          later.inbox)
    later.close()
    for conn in (first, last):
        conn.close()
