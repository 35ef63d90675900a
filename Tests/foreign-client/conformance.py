#!/usr/bin/env python3
"""Conformance of a running flowd to docs/PROTOCOL.md, checked by a client written from that document alone.

    conformance.py FLOWD [FLOW_FILE]

Starts FLOWD (`flowd --app FLOW_FILE`, the movie demo's flow file by default) on ipc:// endpoints in a temporary
folder it removes, plays every role against it (stepper, presenter, operator, an events subscriber, a sender of bad
input) and asserts what PROTOCOL.md promises. Ends flowd by its pid. Exit status 0 when every check holds.
Waits are bounded waits for observable messages (generous deadlines); nothing here judges timing.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowd_client import (Connection, ProtocolError, SIGNATURE, UIModel, connect,  # noqa: E402
                          environment_without_runtime)

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KINDS = ["login.app", "login.form", "login.apiKey", "login.logout", "movies.wishlist", "movies.watched",
         "movies.trending", "movies.detail", "movies.castList"]
HEALTH_COUNTERS = ["messages_in", "messages_out", "errors", "steps_accepted", "steps_dropped", "navigations",
                   "commands_sequenced", "commands_sent", "commands_acked", "reports", "user_actions", "peers_lost",
                   "sessions_ended", "sends_dropped", "steps_duplicate"]


def check(condition, message, *details):
    if not condition:
        raise ProtocolError(message + ("" if not details else ": " + "; ".join(repr(d) for d in details)))


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def section(title):
    print("== " + title, flush=True)


class Presenter:
    """A presenter of one session: applies commands in seq order, ACKs them, reports what changed (§6)."""

    def __init__(self, conn, session):
        self.conn, self.session, self.ui = conn, session, UIModel()

    def sync(self, last_seq, create=False):
        result = self.conn.request("SYNC", {"session": self.session, "last_seq": last_seq, "create": create})
        check(is_int(result.get("seq")) and result.get("mode") in ("replay", "snapshot"), "SYNC's OK", result)
        return result

    def take_snapshot(self, seq):
        snapshot = self.conn.expect_type("SNAPSHOT", session=self.session)
        check(snapshot["seq"] == seq, "the SNAPSHOT's seq is the SYNC's", snapshot["seq"], seq)
        check(set(snapshot["ui"]) >= {"root", "screens"}, "a SNAPSHOT's ui has root and screens", snapshot["ui"])
        for entry in snapshot["ui"]["screens"]:
            check(set(entry) >= {"screen", "placement", "children", "selected", "master", "detail", "presented"},
                  "a SNAPSHOT screen entry has every field of §6.2", entry)
        self.ui.load_snapshot(snapshot)
        return snapshot

    def report_all_visible(self):
        """After every SYNC the daemon counts nothing visible: report every visible screen (§6.1)."""
        visible = sorted(self.ui.visible())
        self.conn.request("REPORT", {"session": self.session,
                                     "reports": [{"presentable": s, "state": "visible"} for s in visible]})

    def next_command(self, report=True):
        """Takes the next COMMAND, checks it is the one after the last applied, applies, ACKs and reports it."""
        body = self.conn.expect_type("COMMAND", session=self.session)
        check(body["seq"] == self.ui.seq + 1, "COMMANDs come in seq order, one after the last applied",
              body["seq"], self.ui.seq)
        before = self.ui.visible()
        removed = self.ui.apply(body["command"])
        self.ui.seq = body["seq"]
        self.conn.send("ACK", {"session": self.session, "seq": body["seq"]})
        if report:
            entries = self.ui.reports(before, removed)
            if entries:
                self.conn.request("REPORT", {"session": self.session, "reports": entries})
        return body["command"]


class Events:
    def __init__(self, ctx, endpoint):
        self.sock = ctx.socket(zmq.SUB)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.SUBSCRIBE, b"nav/")
        self.sock.connect(endpoint)
        self.seen = []

    def poll(self, timeout_s):
        if not self.sock.poll(int(timeout_s * 1000)):
            return None
        frames = self.sock.recv_multipart()
        check(len(frames) == 4, "an events message has four frames: topic + the three of §2", frames)
        topic, sig, msg_type, body = frames
        check(sig == SIGNATURE and msg_type == b"EVENT", "an events message is FLOWD1 EVENT", frames[:3])
        event = json.loads(body)
        check(topic == ("nav/" + event["session"]).encode(), "the topic is nav/<session>", topic, event)
        self.seen.append(event)
        return event

    def expect(self, predicate, what, timeout_s=20.0):
        for event in self.seen:
            if predicate(event):
                return event
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            event = self.poll(deadline - time.monotonic())
            if event is not None and predicate(event):
                return event
        raise ProtocolError("no event %s within %.0f s" % (what, timeout_s))


class Run:
    def __init__(self, flowd, flow_file):
        self.dir = tempfile.mkdtemp(prefix="flowd-foreign-")
        self.control = "ipc://" + os.path.join(self.dir, "control.sock")
        self.events = "ipc://" + os.path.join(self.dir, "events.sock")
        self.log = open(os.path.join(self.dir, "flowd.log"), "wb")
        self.process = subprocess.Popen(
            [flowd, "--app", flow_file, "--runtime-dir", self.dir, "--control", self.control, "--events",
             self.events, "--state-dir", os.path.join(self.dir, "state"), "--log-level", "notice"],
            stdout=self.log, stderr=subprocess.STDOUT, env=environment_without_runtime())
        self.ctx = zmq.Context()
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join(self.dir, "control.sock")):
            check(self.process.poll() is None, "flowd ended at its start", self.read_log())
            check(time.monotonic() < deadline, "flowd did not bind its control socket within 60 s", self.read_log())
            time.sleep(0.05)

    def read_log(self):
        self.log.flush()
        with open(os.path.join(self.dir, "flowd.log"), "rb") as f:
            return f.read().decode("utf-8", "replace")[-4000:]

    def alive(self):
        return self.process.poll() is None

    def close(self):
        self.ctx.destroy(linger=0)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def operator_basics(run, op):
    section("operator: WELCOME, HEALTH, DESCRIBE (§3, §7, §7.2)")
    w = op.welcome
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
    described = op.request("DESCRIBE")
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


def subscribe_events(run, op):
    section("events: subscribe to nav/ (§9)")
    events = Events(run.ctx, run.events)
    # The XPUB builds events only while someone subscribes, and a subscription takes a moment to arrive: probe with
    # the harmless fakeStep (deepLink: true in the movie file) until its 'did' is seen.
    deadline = time.monotonic() + 30
    while True:
        op.request("DEEPLINK", {"session": "default", "step": {"name": "fakeStep"}})
        try:
            event = events.expect(lambda e: e["event"] == "did" and e["step"]["name"] == "fakeStep", "probe", 1.0)
            break
        except ProtocolError:
            check(time.monotonic() < deadline, "no fakeStep event within 30 s of subscribing")
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
    beat = conn.expect_type("HEARTBEAT")
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
    return detail["attachment"]


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
    counters = op.request("HEALTH")["counters"]
    check(counters.get("adapts") == {"replace": 1, "allow": 1, "refuse": 1}, "HEALTH adapts", counters.get("adapts"))
    check(counters.get("adapt_answers_dropped") == {"unknownRequest": 1}, "HEALTH adapt_answers_dropped",
          counters.get("adapt_answers_dropped"))


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
        steps_and_dedup(run, st, pr, events, wishlist)
        adapt(run, st, pr, events, op, wishlist)
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
