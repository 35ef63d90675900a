"""Fields at and past their bounds (PROTOCOL.md §2.1, §3, §6.1; LIMITS.md "names"), and fields that may be left out."""

from flowd_client import Connection, connect
from harness import check, section


def hello_answer(run, body):
    """A HELLO on a new connection: "WELCOME", or the ERROR's code."""
    conn = Connection(run.ctx, run.control)
    req = conn.take_req()
    conn.send("HELLO", dict(body, req=req))
    t, b = conn.expect(lambda t, b: t in ("WELCOME", "ERROR") and b.get("req") == req, "HELLO's answer")
    conn.close()
    return t if t == "WELCOME" else b["code"]


def field_bounds(run, op, st, pr):
    section("fields: names, IDs and intervals at and past their bounds; SYNC's defaults (§2.1, §3, §6.1)")
    hello = {"role": "stepper", "name": "bounds", "instance": "i", "heartbeat_ms": 60000}
    for change, answer in (({"name": "n" * 64}, "WELCOME"), ({"name": "n" * 65}, "invalidName"),
                           ({"instance": "i" * 128}, "WELCOME"), ({"instance": "i" * 129}, "malformedBody"),
                           ({"instance": ""}, "malformedBody"), ({"heartbeat_ms": 100}, "WELCOME"),
                           ({"heartbeat_ms": 99}, "malformedBody"), ({"heartbeat_ms": 60001}, "malformedBody"),
                           ({"role": "boss"}, "malformedBody"), ({"serves": ["k" * 128]}, "WELCOME"),
                           ({"serves": ["k" * 129]}, "invalidName")):
        got = hello_answer(run, dict(hello, **change))
        check(got == answer, "HELLO with %s" % {k: (v if len(str(v)) < 20 else "%d chars" % len(v))
                                                 for k, v in change.items()}, got, answer)
    check(op.request("CREATE_SESSION", {"session": "s" * 64}) == {"created": True}, "a session ID of 64")
    op.request_error("CREATE_SESSION", {"session": "s" * 65}, "invalidName")
    st.request_error("STEP", {"session": "default", "attachment": 1, "step": {"name": "s" * 129}}, "invalidName")
    for presentable in ("", "x" * 257):
        pr.conn.request_error("REPORT", {"session": "default", "reports": [{"presentable": presentable,
                                                                             "state": "visible"}]}, "malformedBody")
    pr.conn.request_error("REPORT", {"session": "default", "reports": [{"presentable": "wishlist.list",
                                                                         "state": "gone"}]}, "malformedBody")
    check(pr.conn.request("REPORT", {"session": "default", "reports": [{"presentable": "nowhere",
                                                                          "state": "dismissed"}]}) == {},
          "a dismissal of a presentable the UI does not hold is accepted (§6.5)")
    # §2: attachment, request and limit are signed 64-bit, seq and last_seq unsigned; past ±2^53 is no error.
    for attachment, code in ((2 ** 63 - 1, "unknownAttachment"), (-1, "unknownAttachment"), (2 ** 63, "malformedBody")):
        st.request_error("STEP", {"session": "default", "attachment": attachment, "step": {"name": "fakeStep"}}, code)
    check(len(op.request("SESSIONS", {"limit": 2 ** 63 - 1})["sessions"]) >= 1, "a limit of 2^63-1 is capped")
    op.request_error("SESSIONS", {"limit": 2 ** 63}, "malformedBody")
    pr.conn.request_error("SYNC", {"session": "default", "last_seq": -1}, "malformedBody")
    pr.conn.send("ACK", {"session": "default", "seq": -1})
    check(pr.conn.expect_type("ERROR", type="ACK")["code"] == "malformedBody", "an ACK's seq of -1")
    ahead = pr.conn.request("SYNC", {"session": "default", "last_seq": 2 ** 64 - 1})
    check(ahead["mode"] == "snapshot", "a last_seq above the session's seq gets a snapshot (§6.1)", ahead)
    plain = pr.conn.request("SYNC", {"session": "default"})
    explicit = pr.conn.request("SYNC", {"session": "default", "last_seq": 0, "create": False})
    check(plain == explicit and plain["mode"] == "snapshot",
          "a SYNC without last_seq and create is one with 0 and false: a fresh presenter's snapshot", plain, explicit)
    # What another reading could take either way, now one way (§2.1, §3, §7.3).
    presenter = {"role": "presenter", "name": "bounds-presenter", "instance": "i", "heartbeat_ms": 60000}
    check(hello_answer(run, dict(presenter, serves=["movies.detail"], adapts=True)) == "WELCOME",
          "serves and adapts are ignored for a presenter")
    for change, answer in (({"serves": ["no such kind"]}, "invalidName"),
                           ({"serves": "movies.detail"}, "malformedBody"), ({"adapts": "yes"}, "malformedBody")):
        got = hello_answer(run, dict(presenter, **change))
        check(got == answer, "a presenter's %s is still checked (§3)" % change, got, answer)
    check(hello_answer(run, hello) == "WELCOME", "a stepper's serves may be left out")
    check(hello_answer(run, dict(hello, later_field={"x": [1]})) == "WELCOME",
          "a HELLO's unknown field is ignored (§2)")
    whole = op.take_req()
    op.send("HEALTH", {"req": float(whole)})
    op.expect(lambda t, b: t == "OK" and b.get("req") == whole, "OK to a req written %.1f" % whole)
    error = op.request_error("NOT_A_TYPE", {}, "unknownType")
    check(error["type"] is None, "an unknownType ERROR's type is null", error)
    check(op.request("SESSIONS", {"prefix": "no/such"}) == {"sessions": []},
          "a SESSIONS prefix outside the ID pattern lists nothing")
    again = connect(run.ctx, run.control, "operator", "bounds-again")
    peer = again.welcome["peer"]
    check(again.hello("operator", "bounds-again")["peer"] == peer, "HELLO again on a connection keeps its peer")
    check(again.expect_type("HEARTBEAT") == {"sessions": {}}, "a HEARTBEAT to an operator is empty")
    again.close()
