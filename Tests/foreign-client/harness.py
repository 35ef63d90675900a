"""The conformance check's harness: a flowd run, a presenter of one session, the events subscriber, checks."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import zmq

from flowd_client import ProtocolError, SIGNATURE, UIModel, environment_without_runtime

MAX_SESSIONS = 12
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
        result = self.conn.request("REPORT", {"session": self.session,
                                              "reports": [{"presentable": s, "state": "visible"} for s in visible]})
        check(result == {}, "REPORT's OK result is {} (§10)", result)

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
        self.flow_file = flow_file
        self.control = "ipc://" + os.path.join(self.dir, "control.sock")
        self.events = "ipc://" + os.path.join(self.dir, "events.sock")
        self.log = open(os.path.join(self.dir, "flowd.log"), "wb")
        self.process = subprocess.Popen(
            [flowd, "--app", flow_file, "--runtime-dir", self.dir, "--control", self.control, "--events",
             self.events, "--state-dir", os.path.join(self.dir, "state"), "--log-level", "notice",
             "--max-sessions", str(MAX_SESSIONS)],
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
