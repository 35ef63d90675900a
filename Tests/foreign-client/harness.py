"""The conformance check's harness: a flowd run, a presenter of one session, the events subscriber, checks."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import zmq

from flowd_client import ProtocolError, SIGNATURE, UIModel, environment_without_runtime, set_curve

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
    def __init__(self, ctx, endpoint, curve=None):
        self.sock = ctx.socket(zmq.SUB)
        self.sock.setsockopt(zmq.LINGER, 0)
        set_curve(self.sock, curve)
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

    def await_live(self, op, session="default", timeout_s=30.0):
        """Probes with the harmless `fakeStep` (deepLink: true in the movie file) until its `did` event arrives: the
        XPUB builds events only while someone subscribes, and a subscription takes a moment to arrive (§9)."""
        deadline = time.monotonic() + timeout_s
        while True:
            op.request("DEEPLINK", {"session": session, "step": {"name": "fakeStep"}})
            try:
                return self.expect(lambda e: e["event"] == "did" and e["step"]["name"] == "fakeStep", "probe", 1.0)
            except ProtocolError:
                check(time.monotonic() < deadline, "no fakeStep event within %.0f s of subscribing" % timeout_s)

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
    """One flowd on ipc:// endpoints in a temporary folder (its state there too), started again on demand."""

    def __init__(self, flowd, flow_file, args=(), config=None, start=True):
        self.dir = tempfile.mkdtemp(prefix="flowd-foreign-")
        self.flowd, self.flow_file = flowd, flow_file
        self.control = "ipc://" + os.path.join(self.dir, "control.sock")
        self.events = "ipc://" + os.path.join(self.dir, "events.sock")
        self.state_dir = os.path.join(self.dir, "state")
        self.args = list(args)
        if config is not None:
            path = os.path.join(self.dir, "flowd.json")
            with open(path, "w") as f:
                json.dump(config, f)
            self.args += ["--config", path]
        self.log = open(os.path.join(self.dir, "flowd.log"), "ab")
        self.ctx = zmq.Context()
        self.process = None
        if start:
            self.start()

    def start(self):
        """Starts flowd and waits until it bound its control socket (after recovering its state: RELIABILITY.md)."""
        sock = os.path.join(self.dir, "control.sock")
        for stale in ("control.sock", "events.sock"):  # left by a killed flowd; the new one binds anew
            if os.path.exists(os.path.join(self.dir, stale)):
                os.unlink(os.path.join(self.dir, stale))
        self.process = self.spawn()
        deadline = time.monotonic() + 60
        while not os.path.exists(sock):
            check(self.process.poll() is None, "flowd ended at its start", self.read_log())
            check(time.monotonic() < deadline, "flowd did not bind its control socket within 60 s", self.read_log())
            time.sleep(0.05)

    def spawn(self, extra=()):
        return subprocess.Popen(
            [self.flowd, "--app", self.flow_file, "--runtime-dir", self.dir, "--control", self.control, "--events",
             self.events, "--state-dir", self.state_dir, "--log-level", "notice"] + self.args + list(extra),
            stdout=self.log, stderr=subprocess.STDOUT, env=environment_without_runtime())

    def refused_start(self, extra=()):
        """Starts flowd expecting it to refuse (exit non-zero within 60 s); returns its log."""
        process = self.spawn(extra)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise ProtocolError("flowd did not refuse to start within 60 s")
        check(code != 0, "flowd refused to start with a non-zero status", code, self.read_log())
        return self.read_log()

    def read_log(self):
        self.log.flush()
        with open(os.path.join(self.dir, "flowd.log"), "rb") as f:
            return f.read().decode("utf-8", "replace")[-4000:]

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, sig=signal.SIGTERM):
        """Ends flowd by its pid with `sig` (SIGKILL after 30 s); returns its exit status."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def close(self):
        self.ctx.destroy(linger=0)
        self.stop()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def running(flowd, flow_file, **options):
    """A Run for the block: its log's tail printed when the block fails, the run closed and its folder removed."""
    run = Run(flowd, flow_file, **options)
    try:
        yield run
    except BaseException:
        print("flowd's log (tail):\n" + run.read_log(), file=sys.stderr)
        raise
    finally:
        run.close()


def wait_until(what, probe, timeout_s=20.0, every_s=0.05):
    """Asks `probe()` until it returns something true (returned), failing after `timeout_s`; for state only the
    daemon's answers show (HEALTH counters, SESSIONS), never to judge timing."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        check(time.monotonic() < deadline, "%s, within %.0f s" % (what, timeout_s))
        time.sleep(every_s)
