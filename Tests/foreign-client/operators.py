"""Checks of the operator's side, sessions and bad input (PROTOCOL.md §2, §3, §4, §7, §8)."""

import hashlib
import json
import os

from flowd_client import Connection, SIGNATURE, connect
from harness import HEALTH_COUNTERS, KINDS, MAX_SESSIONS, Presenter, check, is_int, section


def operator_basics(run, op):
    section("operator: WELCOME, HEALTH, DESCRIBE (§3, §7, §7.2)")
    w = op.welcome
    for name in ("control.sock", "events.sock"):
        mode = os.stat(os.path.join(run.dir, name)).st_mode & 0o777
        check(mode == 0o600, "without keys, the ipc socket files are mode 0600 (§1.1)", name, oct(mode))
    check(is_int(w["req"]) and isinstance(w["peer"], str) and isinstance(w["daemon"], str)
          and is_int(w["heartbeat_ms"]) and w["protocol"] == 1, "WELCOME's fields", w)
    health = op.request("HEALTH")
    check(health["status"] == "ok" and health["daemon"] == w["daemon"], "HEALTH status and daemon", health)
    check(isinstance(health["uptime_s"], (int, float)) and is_int(health["sessions"]), "HEALTH uptime/sessions", health)
    check(set(health["peers"]) >= {"stepper", "presenter", "operator"} and health["peers"]["operator"] >= 1,
          "HEALTH peers by role", health["peers"])
    missing = [c for c in HEALTH_COUNTERS if c not in health["counters"]]
    check(not missing, "HEALTH counters named in §7 are there", missing)
    check(set(health["journal"]) >= {"records", "recovered_records", "available"}, "HEALTH journal", health)
    version = health.get("app_version")
    check(isinstance(version, str) and len(version) == 12 and all(c in "0123456789abcdef" for c in version),
          "HEALTH app_version: 12 hex digits of the flow file's SHA-256", version)
    check(version == hashlib.sha256(open(run.flow_file, "rb").read()).hexdigest()[:12], "app_version", version)
    check(health["counters"].get("app_reloads") == 0 and health["counters"].get("app_reloads_refused") == 0,
          "a flow file daemon counts its reloads", health["counters"])
    described = op.request("DESCRIBE")
    check(described.get("app_version") == version, "DESCRIBE's app_version is HEALTH's", described.get("app_version"))
    check(op.request("DESCRIBE", {"session": "default"}) == described, "DESCRIBE of a session of that version")
    op.request_error("DESCRIBE", {"session": "nowhere"}, "unknownSession")
    steps = {s["name"]: s for s in described["steps"]}
    check(steps["movieIsPicked"] == {"name": "movieIsPicked", "payload": "<int: a movie id>",
                                     "summary": "a movie's detail is pushed"}, "DESCRIBE step", steps["movieIsPicked"])
    check("payload" not in steps["moviesAreRequired"], "a step without payload has no 'payload'",
          steps["moviesAreRequired"])
    kinds = {k["kind"]: k for k in described["stepper_kinds"]}
    check(sorted(kinds) == sorted(KINDS) and kinds["movies.detail"]["steps"] == ["castIsPicked"],
          "DESCRIBE stepper kinds", kinds)
    types = {t["type"]: t for t in described["screen_types"]}
    check(types["MovieDetail"]["kind"] == "view" and types["MovieDetail"]["data"] == "<int: the movie id>",
          "DESCRIBE MovieDetail", types["MovieDetail"])
    check([a["name"] for a in types["MovieDetail"]["actions"]] == ["pickCast"], "MovieDetail's actions",
          types["MovieDetail"])
    check(types["split"]["kind"] == "split" and "data" not in types["About"], "screen kinds and absent data",
          types["split"], types["About"])


def operator_sessions(run, op, st, pr):
    section("operator: SESSIONS paging, CREATE_SESSION, TREE (§7, §7.1, §7.3)")
    page = op.request("SESSIONS")
    check("next" not in page and [s["id"] for s in page["sessions"]] == ["default"], "one session", page)
    default = page["sessions"][0]
    check(default["presenter"] == "foreign-tui" and default["seq"] == pr.ui.seq and is_int(default["flows"])
          and is_int(default["steppers"]), "SESSIONS' entry", default)
    for i in range(5):
        check(op.request("CREATE_SESSION", {"session": "kiosk-%d" % i}) == {"created": True}, "created")
    check(op.request("CREATE_SESSION", {"session": "kiosk-0"}) == {"created": False}, "created: false if it exists")
    pages, after = [], None
    while True:
        body = {"limit": 2, "prefix": "kiosk-"}
        if after is not None:
            body["after"] = after
        page = op.request("SESSIONS", body)
        pages.append([s["id"] for s in page["sessions"]])
        if "next" not in page:
            break
        check(page["next"] == pages[-1][-1], "next is the page's last ID", page)
        after = page["next"]
    check(pages == [["kiosk-0", "kiosk-1"], ["kiosk-2", "kiosk-3"], ["kiosk-4"]], "the pages", pages)
    page = op.request("SESSIONS", {"after": "kiosk-1x", "limit": 500})
    check([s["id"] for s in page["sessions"]] == ["kiosk-2", "kiosk-3", "kiosk-4"], "after an ID that is not", page)
    op.request_error("SESSIONS", {"limit": 0}, "malformedBody")
    op.request_error("CREATE_SESSION", {"session": "not a name!"}, "invalidName")

    tree = op.request("TREE", {"session": "default"})
    root = tree["tree"]["root"]
    check(isinstance(tree["text"], str) and root["flow"] == "app" and root["ready"] is True
          and root["root"] == {"id": "app.stack", "state": "visible"} and is_int(root["coordinator"])
          and root["allow_step_when_dismissed"] is False, "TREE's root node", root)
    login = root["steppers"][0]
    check(login["stepper"] == "RemoteStepper(login.app)" and login["role"] == "flow" and is_int(login["attachment"])
          and set(login) >= {"presentable", "allow_step_when_not_presented", "allow_step_when_dismissed",
                             "pending_initial_step"}, "TREE's stepper", login)
    check(all(set(c) >= {"coordinator", "flow", "root", "ready", "steppers", "children"} for c in root["children"]),
          "TREE's children", root["children"])
    op.request_error("TREE", {"session": "nowhere"}, "unknownSession")


def deep_links(run, op, pr):
    section("operator: DEEPLINK by step and by uri, and its errors (§7)")
    result = op.request("DEEPLINK", {"session": "default", "uri": "movies://wishlist/movie/23452/cast/2"})
    check(result["applied"] == ["castIsPicked"] and result["skipped"] == ["movieIsPicked"]
          and is_int(result["navigations"]) and result["navigations"] >= 1, "a uri over a movie shown", result)
    command = pr.next_command()
    check(command["op"] == "push" and command["screen"]["id"] == "wishlist.cast.2", "the deep link's push", command)
    result = op.request("DEEPLINK", {"session": "kiosk-1", "uri": "movies://wishlist/movie/5"})
    check(result["applied"] == ["movieIsPicked"] and result["skipped"] == [], "a uri in a fresh session", result)
    result = op.request("DEEPLINK", {"session": "kiosk-1", "step": {"name": "movieIsPicked", "payload": 7}})
    check(set(result) == {"navigations"} and result["navigations"] >= 1, "a step: navigations only", result)
    error = op.request_error("DEEPLINK", {"session": "default", "uri": "movies://nowhere"}, "unknownDeepLink")
    check("movies://wishlist/movie/{id:int}" in error["message"] and error["type"] == "DEEPLINK",
          "unknownDeepLink lists the patterns", error)
    error = op.request_error("DEEPLINK", {"session": "default", "step": {"name": "dashboardIsRequired"}},
                             "notDeepLinkable")
    check("movieIsPicked" in error["message"], "notDeepLinkable names the steps that are", error)
    op.request_error("DEEPLINK", {"session": "nowhere", "step": {"name": "fakeStep"}}, "unknownSession")
    op.request_error("DEEPLINK", {"session": "default", "step": {"name": "fakeStep"}, "uri": "movies://settings"},
                     "malformedBody")
    op.request_error("DEEPLINK", {"session": "default", "uri": "movies://" + "x" * 2048}, "malformedBody")
    op.request_error("DEEPLINK", {"session": "default", "step": {"name": "noSuchStep"}}, "unknownStep")


def end_sessions(run, op, st):
    section("operator: END_SESSION, with and without a presenter (§4)")
    result = op.request("END_SESSION", {"session": "kiosk-0"})
    check(result["presenter"] is None and is_int(result["seq"]) and is_int(result["attachments"]),
          "END_SESSION's OK", result)
    op.request_error("END_SESSION", {"session": "kiosk-0"}, "unknownSession")

    conn = connect(run.ctx, run.control, "presenter", "foreign-kiosk")
    kiosk = Presenter(conn, "kiosk-9")
    conn.request_error("SYNC", {"session": "kiosk-9", "last_seq": 0, "create": False}, "unknownSession")
    conn.request_error("SYNC", {"session": "kiosk 9", "last_seq": 0, "create": True}, "invalidName")
    result = kiosk.sync(0, create=True)
    kiosk.take_snapshot(result["seq"])
    kiosk.report_all_visible()
    attached = [st.expect_type("ATTACH", session="kiosk-9", kind="login.app")["attachment"]]
    attached.append(st.expect_type("ATTACH", session="kiosk-9", kind="movies.wishlist")["attachment"])
    result = op.request("END_SESSION", {"session": "kiosk-9"})
    check(result["presenter"] == "foreign-kiosk" and result["seq"] == kiosk.ui.seq and result["attachments"] >= 2,
          "END_SESSION of a hosted session", result)
    first = conn.expect(lambda t, b: t in ("SNAPSHOT", "ERROR"), "the end's SNAPSHOT")
    check(first[0] == "SNAPSHOT" and first[1] == {"session": "kiosk-9", "seq": kiosk.ui.seq,
                                                   "ui": {"root": None, "screens": []}},
          "first an empty SNAPSHOT with the last seq", first)
    notice = conn.expect_type("ERROR")
    check(notice["code"] == "sessionEnded" and notice["req"] is None and notice["type"] == "END_SESSION",
          "then the notice sessionEnded", notice)
    # The DETACHes went out before the OK (§4's order), so they precede the reply to the stepper's next request.
    error = st.request_error("STEP", {"session": "kiosk-9", "attachment": attached[1],
                                      "step": {"name": "movieIsPicked", "payload": 1}}, "unknownSession")
    held = [b["attachment"] for t, b in st.inbox if t == "ATTACH" and b["session"] == "kiosk-9"] + attached
    detached = [b for t, b in st.inbox if t == "DETACH" and b["session"] == "kiosk-9"]
    check(all(b["reason"] == "sessionEnded" for b in detached), "DETACH's reason", detached)
    detached = [b["attachment"] for b in detached]
    check(detached == sorted(detached) and sorted(held) == detached, "a DETACH for each, in attachment order",
          detached, held)
    check(result["attachments"] >= len(detached), "attachments counts remote and in-daemon ones", result)
    # Its REPORT and USER_ACTION get unknownSession; an ACK, never answered (§6.3), gets nothing.
    conn.send("ACK", {"session": "kiosk-9", "seq": kiosk.ui.seq})
    conn.request_error("REPORT", {"session": "kiosk-9", "reports": [{"presentable": "app.stack", "state": "visible"}]},
                       "unknownSession")
    check(not [b for t, b in conn.inbox if t == "ERROR" and b.get("type") == "ACK"], "no reply to the ACK", conn.inbox)
    conn.request_error("USER_ACTION", {"session": "kiosk-9", "presentable": "app.stack", "action": {"name": "x"}},
                       "unknownSession")
    # The ID is free again; a SYNC that creates it anew gets a SNAPSHOT, even with the old session's last_seq.
    result = kiosk.sync(kiosk.ui.seq, create=True)
    check(result["mode"] == "snapshot", "a re-created session is a snapshot, whatever last_seq", result)
    kiosk.take_snapshot(result["seq"])
    check(kiosk.ui.root == "app.stack", "the new session's UI", kiosk.ui.root)
    check(op.request("END_SESSION", {"session": "kiosk-9"})["presenter"] == "foreign-kiosk", "ended again")
    conn.expect_type("ERROR", code="sessionEnded")
    counters = op.request("HEALTH")["counters"]
    check(counters["sessions_ended"] == {"operator": 3}, "sessions_ended by reason", counters["sessions_ended"])
    conn.send("BYE", {})
    conn.close()


def bad_input(run, op, st, pr):
    section("errors by role and bad input (§2, §3, §8): the documented code, the daemon still serving")
    # By role and by state.
    error = op.request_error("STEP", {"session": "default", "attachment": 1, "step": {"name": "fakeStep"}},
                             "forbidden")
    check(error["type"] == "STEP", "an ERROR names the type that failed", error)
    pr.conn.request_error("DEEPLINK", {"session": "default", "step": {"name": "fakeStep"}}, "forbidden")
    st.request_error("REPORT", {"session": "default", "reports": []}, "forbidden")
    op.request_error("WELCOME", {"peer": "x", "daemon": "x", "heartbeat_ms": 1000, "protocol": 1}, "forbidden")
    for daemon_type in ("WELCOME", "ERROR", "COMMAND", "SNAPSHOT", "ATTACH", "DETACH", "ACTION", "ADAPT", "EVENT"):
        # §2: a type only the daemon sends is forbidden whatever its body, not judged on a body it does not read.
        op.request_error(daemon_type, {}, "forbidden")
    st.request_error("STEP", {"session": "default", "attachment": 999999, "step": {"name": "movieIsPicked"}},
                     "unknownAttachment")
    st.request_error("STEP", {"session": "nowhere", "attachment": 1, "step": {"name": "movieIsPicked"}},
                     "unknownSession")
    st.request_error("STEP", {"session": "default", "attachment": 1, "step": {"name": "noSuchStep"}}, "unknownStep")
    st.request_error("STEP", {"session": "default", "attachment": 1, "step": {"name": ""}}, "invalidName")
    # A payload not of the step's type (a DemoStep in Swift, a declared type in the flow file) is refused.
    error = op.request_error("DEEPLINK", {"session": "default", "step": {"name": "movieIsPicked", "payload": "dune"}},
                             "invalidPayload")
    check(error["type"] == "DEEPLINK" and "movieIsPicked" in error["message"], "invalidPayload names the step", error)
    error = pr.conn.request_error("REPORT", {"session": "default", "reports": [
        {"presentable": "nowhere.to.be.seen", "state": "visible"}]}, "unknownPresentable")
    check("nowhere.to.be.seen" in error["message"], "unknownPresentable names the ignored entries", error)
    pr.conn.request_error("USER_ACTION", {"session": "default", "presentable": "nowhere.to.be.seen",
                                          "action": {"name": "pick"}}, "unknownPresentable")
    pr.conn.request_error("REPORT", {"session": "kiosk-1", "reports": []}, "notHost")
    # §2: the daemon ignores fields it does not know, at the top and nested, on every path (STEP's fast one too).
    extra = {"later_field": {"nested": [1, None, "x"]}}
    check(op.request("HEALTH", dict(extra))["status"] == "ok", "a HEALTH with an unknown field")
    check(op.request("TREE", dict(extra, session="default"))["tree"]["root"] is not None, "a TREE with one")
    check(pr.conn.request("REPORT", dict(extra, session="default", reports=[])) == {}, "a REPORT with one")
    st.request_error("STEP", dict(extra, session="default", attachment=999999,
                                  step={"name": "fakeStep", "later_field": 1}), "unknownAttachment")
    # §3's order of what a request names: unknownSession before notHost, invalidPayload before notDeepLinkable.
    pr.conn.request_error("REPORT", {"session": "no-such-session", "reports": []}, "unknownSession")
    op.request_error("DEEPLINK", {"session": "default", "step": {"name": "alert", "payload": 5}}, "invalidPayload")
    # §3: a request's req is required; HEARTBEAT and ACK are not requests, a req in them is ignored, unanswered.
    op.send("HEALTH", {})
    op.expect(lambda t, b: t == "ERROR" and b["type"] == "HEALTH" and b["code"] == "malformedBody" and b["req"] is None,
              "ERROR malformedBody, req null, to a HEALTH without req")
    op.send("HEARTBEAT", {"req": 950})
    pr.conn.send("ACK", {"session": "default", "seq": 1, "req": 951})
    for conn, round_trip in ((op, ("HEALTH", {})), (pr.conn, ("REPORT", {"session": "default", "reports": []}))):
        conn.request(*round_trip)
        check(not [b for t, b in conn.inbox if b.get("req") in (950, 951)], "no reply to a HEARTBEAT or an ACK",
              conn.inbox)
    # §2.1: the daemon does not check that a req is unique: two requests with one req get two replies.
    op.send("HEALTH", {"req": 960})
    op.send("HEALTH", {"req": 960})
    for _ in range(2):
        op.expect(lambda t, b: t == "OK" and b.get("req") == 960, "an OK to each HEALTH with req 960")
    other = connect(run.ctx, run.control, "presenter", "foreign-second")
    other.request_error("SYNC", {"session": "default", "last_seq": 0, "create": False}, "sessionHosted")
    other.request_error("HELLO", {"role": "presenter", "name": "foreign-second", "heartbeat_ms": 1000},
                        "malformedBody")  # no instance
    other.close()

    # Bad frames, on a connection that never said HELLO and on a welcomed one.
    raw = Connection(run.ctx, run.control)
    error = raw.request_error("HEALTH", {}, "notWelcome")
    check(error["type"] == "HEALTH", "notWelcome's type", error)
    raw.send("BYE", {})  # not a request: no req
    error = raw.expect_type("ERROR", type="BYE")
    check(error["code"] == "notWelcome" and error["req"] is None, "a BYE before HELLO", error)
    # §3's order: the body is judged before the sender.
    raw.request_error("CREATE_SESSION", {"session": "no such id"}, "invalidName")
    raw.request_error("STEP", {"session": "default"}, "malformedBody")
    raw.request_error("COMMAND", {}, "notWelcome")
    raw.close()

    def refused(frames, code, req_null=True):
        op.send_frames(frames)
        error = op.expect_type("ERROR", code=code)
        check(not req_null or error["req"] is None, "%s carries req null" % code, error)
        return error

    refused([SIGNATURE, b"HEALTH"], "malformedFrame")
    refused([SIGNATURE, b"HEALTH", b"{}", b"{}"], "malformedFrame")
    refused([b"FLOWD2", b"HEALTH", b'{"req": 900}'], "unsupportedVersion", req_null=False)
    refused([SIGNATURE, b"NO_SUCH_TYPE", b'{"req": 901}'], "unknownType", req_null=False)
    refused([SIGNATURE, b"health", b'{"req": 902}'], "unknownType", req_null=False)
    refused([SIGNATURE, b"NO_SUCH_TYPE", b'{"req": 902,}'], "unknownType")  # not JSON: no readable req (§3)
    refused([b"FLOWD2", b"HEALTH", b'{"req": 902} x'], "unsupportedVersion")
    refused([SIGNATURE, b"HEALTH", b"not json"], "malformedBody")
    refused([SIGNATURE, b"HEALTH", b"[1]"], "malformedBody")
    refused([SIGNATURE, b"HEALTH", b'{"req": 9007199254740993}'], "malformedBody")
    refused([SIGNATURE, b"HEALTH", b'{"req": -1}'], "malformedBody")
    refused([SIGNATURE, b"HEALTH", b'{"req": 1.5}'], "malformedBody")
    check(op.request_raw("HEALTH", {}, req=2 ** 53)[0] == "OK", "a req of 2^53 is one")
    deep = '{"req": 903, "x": ' + "[" * 64 + "]" * 64 + "}"
    error = refused([SIGNATURE, b"HEALTH", deep.encode()], "malformedBody", req_null=False)
    check(error["req"] == 903, "a too-deep body's req, read up to 512 levels (§2)", error)
    refused([SIGNATURE, b"HEALTH", ('{"req": 903, "x": ' + "[" * 600 + "]" * 600 + "}").encode()], "malformedBody")
    big = json.dumps({"req": 904, "pad": "x" * 300000}).encode()
    refused([SIGNATURE, b"HEALTH", big], "messageTooLarge", req_null=False)
    refused([SIGNATURE, b"ACK", b'{"session": "default"}'], "malformedBody")
    # §2: the whole body is UTF-8; a string that is not, even an unknown field's value or key, is not JSON.
    for body in (b'{"req": 905, "x": "\xff"}', b'{"req": 905, "\xc0\x80": 1}', b'{"req": 905, "x": ["\xed\xa0\x80"]}'):
        refused([SIGNATURE, b"HEALTH", body], "malformedBody")
    refused([SIGNATURE, b"ACK", b'{"session": "default", "seq": 1, "x": "\xe2\x82"}'], "malformedBody")
    # Found by a client written in C (protoaudit3): a malformedFrame reads no body, so no req even when it reads (§3);
    # DESCRIBE's optional session is held to the session pattern like every other one (§3's order).
    refused([b"FLOWD", b"HEALTH", b'{"req": 906}'], "malformedFrame")
    op.request_error("DESCRIBE", {"session": "no such id"}, "invalidName")
    # Found by a client written in Go (protoaudit4): HEARTBEAT, ACK and ADAPTED are not requests, so their ERROR
    # carries req null even when the body has one (§3); a key is matched exactly, not as Go's encoding/json matches
    # struct fields (case-insensitively): "Session" is an unknown field. An unpaired surrogate in a key of the body's
    # own object leaves the body unread; deeper, in an unknown field, it is skipped (§2).
    refused([SIGNATURE, b"ACK", b'{"req": 907, "session": "default"}'], "malformedBody")
    refused([SIGNATURE, b"HEARTBEAT", b'{"req": 908, "sessions": []}'], "malformedBody")
    refused([SIGNATURE, b"ADAPTED", b'{"req": 909, "session": "default", "request": 1, "answer": "Allow"}'],
            "malformedBody")
    op.request_error("TREE", {"Session": "default"}, "malformedBody")
    refused([SIGNATURE, b"HEALTH", b'{"req": 910, "\\ud800": 1}'], "malformedBody")
    op.send_frames([SIGNATURE, b"HEALTH", b'{"req": 911, "x": {"\\ud800": 1}}'])
    op.expect(lambda t, b: t == "OK" and b.get("req") == 911, "an OK to a HEALTH with a surrogate key deeper down")
    long_payload = {"name": "movieIsPicked", "payload": "x" * 100000}
    error = op.request_error("DEEPLINK", {"session": "default", "step": long_payload}, "invalidPayload")
    check(len(error["message"]) == 1024 and error["message"].endswith("\u2026"),
          "a refusal quotes at most 1024 characters", len(error["message"]))
    # §2: an optional field sent as null is absent; a required one is malformedBody.
    check(op.request("SESSIONS", {"limit": None, "after": None, "prefix": None})["sessions"], "SESSIONS with nulls")
    check(op.request("DESCRIBE", {"session": None})["steps"], "DESCRIBE with session null")
    error = op.request_error("TREE", {"session": None}, "malformedBody")
    check(error["req"] is not None, "a required field that is null: malformedBody with the req", error)
    # §6.6: in a flow file a screen without a type has its kind as its type, declared with no actions.
    pr.conn.request_error("USER_ACTION", {"session": "default", "presentable": "app.stack",
                                          "action": {"name": "pick"}}, "unknownAction")
    # §2: an integer field reads a literal through a double: a fraction it cannot tell from 1 is 1.
    op.send_frames([SIGNATURE, b"HEALTH", b'{"req": 1.0000000000000001}'])
    op.expect(lambda t, b: t == "OK" and b.get("req") == 1, "an OK with req 1 to req 1.0000000000000001")
    # Over ZMQ_MAXMSGSIZE (1 MiB): libzmq drops the connection before the daemon sees it; everyone else is served.
    huge = Connection(run.ctx, run.control)
    huge.send_frames([SIGNATURE, b"HEALTH", json.dumps({"req": 1, "pad": "x" * (2 << 20)}).encode()])
    huge.close()
    check(op.request("HEALTH", {})["status"] == "ok", "the daemon still answers")
    errors = op.request("HEALTH")["counters"]["errors"]
    for code in ("malformedFrame", "unsupportedVersion", "unknownType", "malformedBody", "messageTooLarge",
                 "notWelcome", "forbidden", "unknownAttachment", "unknownStep", "invalidName", "unknownPresentable",
                 "unknownAction", "invalidPayload", "notHost", "sessionHosted", "unknownDeepLink", "notDeepLinkable",
                 "unknownSession"):
        check(errors.get(code, 0) >= 1, "HEALTH errors counts %s" % code, errors)
    check("replaced" not in errors and "sessionEnded" not in errors, "notices are not errors", errors)


def session_limit(run, op):
    section("sessionLimit (§3, --max-sessions %d)" % MAX_SESSIONS)
    live = op.request("HEALTH")["sessions"]
    for i in range(MAX_SESSIONS - live):
        check(op.request("CREATE_SESSION", {"session": "more-%d" % i}) == {"created": True}, "created below the limit")
    error = op.request_error("CREATE_SESSION", {"session": "one-too-many"}, "sessionLimit")
    check(error["type"] == "CREATE_SESSION" and isinstance(error["message"], str), "sessionLimit's ERROR", error)
    check(op.request("HEALTH")["sessions"] == MAX_SESSIONS, "nothing created at the limit")
