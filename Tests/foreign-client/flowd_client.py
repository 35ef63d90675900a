"""A Flowd protocol client in Python, written from docs/PROTOCOL.md alone (no FlowWire, no FlowClient).

It is deliberately small: frames (§2), requests and their OK/ERROR replies (§3), the messages the daemon sends on its
own (ATTACH, COMMAND, HEARTBEAT, ...) kept in arrival order until a test asks for them, and a presenter's UI model
(§6.2, §6.3, §6.5.1) that applies SNAPSHOTs and COMMANDs and says what is visible.
"""

import json
import os
import time
import uuid

import zmq

SIGNATURE = b"FLOWD1"


class ProtocolError(AssertionError):
    """The daemon did something PROTOCOL.md does not say it does (or did not answer in time)."""


def encode(msg_type, body):
    return [SIGNATURE, msg_type.encode("ascii"), json.dumps(body, separators=(",", ":")).encode("utf-8")]


class Connection:
    """One DEALER on the control socket (§1), with the frames of §2."""

    def __init__(self, ctx, endpoint, timeout_s=20.0, curve=None, options=None):
        self.sock = ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.IMMEDIATE, 1)
        for option, value in (options or {}).items():
            self.sock.setsockopt(option, value)
        set_curve(self.sock, curve)
        self.sock.connect(endpoint)
        self.timeout_s = timeout_s
        self.inbox = []  # (type, body) the daemon sent that no one asked for yet, in arrival order
        self.next_req = 1
        self.welcome = None

    def close(self):
        self.sock.close(0)

    # -- raw frames

    def send_frames(self, frames):
        self.sock.send_multipart(frames)

    def send(self, msg_type, body):
        self.send_frames(encode(msg_type, body))

    def _receive_one(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not self.sock.poll(int(remaining * 1000) + 1):
            return None
        frames = self.sock.recv_multipart()
        if len(frames) != 3 or frames[0] != SIGNATURE:
            raise ProtocolError("the daemon sent a message that is not three frames starting with FLOWD1: %r" % frames)
        msg_type = frames[1].decode("ascii")
        body = json.loads(frames[2].decode("utf-8"))
        if not isinstance(body, dict):
            raise ProtocolError("a %s body is not a JSON object: %r" % (msg_type, body))
        return msg_type, body

    def expect(self, predicate, what, timeout_s=None):
        """The first message (kept or new) that predicate(type, body) accepts; the others stay kept, in order."""
        for i, (t, b) in enumerate(self.inbox):
            if predicate(t, b):
                del self.inbox[i]
                return t, b
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while True:
            got = self._receive_one(deadline)
            if got is None:
                raise ProtocolError("no %s within %.0f s; kept meanwhile: %s" % (what, timeout_s or self.timeout_s,
                                                                                 [t for t, _ in self.inbox]))
            if predicate(*got):
                return got
            self.inbox.append(got)

    def expect_type(self, msg_type, timeout_s=None, **fields):
        def matches(t, b):
            return t == msg_type and all(b.get(k) == v for k, v in fields.items())
        return self.expect(matches, "%s %s" % (msg_type, fields or ""), timeout_s)[1]

    def kept(self, msg_type):
        """Kept messages of one type, removed from the inbox (HEARTBEATs a test does not care about, ...)."""
        found = [b for t, b in self.inbox if t == msg_type]
        self.inbox = [(t, b) for t, b in self.inbox if t != msg_type]
        return found

    def drain(self, quiet_s=0.05):
        """Reads what has arrived already into the inbox (never judges timing: only empties the socket)."""
        deadline = time.monotonic() + quiet_s
        while True:
            got = self._receive_one(deadline)
            if got is None:
                return
            self.inbox.append(got)

    # -- requests (§3: every message with a req gets exactly one OK or ERROR with the same req)

    def receive(self, timeout_s=None):
        """The next message, kept ones first; a ProtocolError when none comes within the timeout."""
        if self.inbox:
            return self.inbox.pop(0)
        got = self._receive_one(time.monotonic() + (timeout_s or self.timeout_s))
        if got is None:
            raise ProtocolError("nothing from the daemon within %.0f s" % (timeout_s or self.timeout_s))
        return got

    def pipeline(self, msg_type, bodies):
        """Sends the requests at once, then takes their replies; returns [(type, result or error)] in order."""
        reqs = []
        for body in bodies:
            reqs.append(self.take_req())
            self.send(msg_type, dict(body, req=reqs[-1]))
        replies = []
        for req in reqs:
            t, b = self.expect(lambda t, b: t in ("OK", "ERROR") and b.get("req") == req, "the reply to req %d" % req)
            replies.append((t, b.get("result") if t == "OK" else b))
        return replies

    def take_req(self):
        req = self.next_req
        self.next_req += 1
        return req

    def request_raw(self, msg_type, body, req=None):
        """Sends a request and returns ("OK", result) or ("ERROR", error body)."""
        if req is None:
            req = self.take_req()
        body = dict(body, req=req)
        self.send(msg_type, body)
        t, b = self.expect(lambda t, b: t in ("OK", "ERROR") and b.get("req") == req,
                           "OK/ERROR for %s req %d" % (msg_type, req))
        return t, (b.get("result") if t == "OK" else b)

    def request(self, msg_type, body=None, req=None):
        t, b = self.request_raw(msg_type, body or {}, req)
        if t != "OK":
            raise ProtocolError("%s %r was refused: %r" % (msg_type, body, b))
        if not isinstance(b, dict):
            raise ProtocolError("the OK of %s has no object 'result': %r" % (msg_type, b))
        return b

    def request_error(self, msg_type, body, code):
        t, b = self.request_raw(msg_type, body)
        if t != "ERROR" or b.get("code") != code:
            raise ProtocolError("%s %r: expected ERROR %s, got %s %r" % (msg_type, body, code, t, b))
        if not (set(b) >= {"req", "code", "message", "type"} and isinstance(b["message"], str)):
            raise ProtocolError("an ERROR has req, code, message and type (§3): %r" % b)
        return b

    def hello(self, role, name, heartbeat_ms=60000, instance=None, **extra):
        self.instance = instance or str(uuid.uuid4())
        body = dict(role=role, name=name, instance=self.instance, heartbeat_ms=heartbeat_ms, **extra)
        req = self.take_req()
        self.send("HELLO", dict(body, req=req))
        t, b = self.expect(lambda t, b: t in ("WELCOME", "ERROR") and b.get("req") == req, "WELCOME for HELLO")
        if t != "WELCOME":
            raise ProtocolError("HELLO %r refused: %r" % (body, b))
        self.welcome = b
        return b


def set_curve(sock, curve):
    """Makes `sock` a CURVE client (§1.1) when `curve` is (the daemon's public key, the client's public, secret)."""
    if curve is not None:
        server_key, public_key, secret_key = curve
        sock.curve_serverkey = server_key
        sock.curve_publickey = public_key
        sock.curve_secretkey = secret_key


def connect(ctx, endpoint, role, name, curve=None, **extra):
    conn = Connection(ctx, endpoint, curve=curve)
    conn.hello(role, name, **extra)
    return conn


class UIModel:
    """A presenter's model of one session's UI, in SNAPSHOT's shape (§6.2), changed by COMMANDs (§6.3)."""

    def __init__(self):
        self.root = None
        self.screens = {}  # id -> entry as in SNAPSHOT's "screens"
        self.seq = 0

    def load_snapshot(self, snapshot):
        ui = snapshot["ui"]
        self.root = ui["root"]
        self.screens = {entry["screen"]["id"]: dict(entry) for entry in ui["screens"]}
        self.seq = snapshot["seq"]

    def _add(self, screen, placement):
        entry = {"screen": screen, "placement": placement, "children": [], "selected": None,
                 "master": None, "detail": None, "presented": None}
        if screen["kind"] == "tabs":
            entry["selected"] = 0
        self.screens[screen["id"]] = entry
        return screen["id"]

    def _keep(self, screen):
        """A screen a command puts where it already is keeps its subtree and takes the command's type and data if its
        kind is the same (§6.3)."""
        entry = self.screens[screen["id"]]
        if entry["screen"]["kind"] == screen["kind"]:
            entry["screen"] = screen
        return screen["id"]

    def _remove(self, sid, removed):
        entry = self.screens.pop(sid, None)
        if entry is None:
            return
        removed.append(sid)
        for child in entry["children"] + [entry["master"], entry["detail"], entry["presented"]]:
            if child:
                self._remove(child, removed)

    def apply(self, command):
        """Applies one command; returns the ids it removed from the UI (to report dismissed)."""
        op = command["op"]
        removed = []
        target = self.screens.get(command.get("target")) if "target" in command else None
        if op != "setRoot" and target is None:
            raise ProtocolError("command %r names a target the UI does not hold" % command)
        if op == "setRoot":
            if self.root == command["screen"]["id"]:
                self._keep(command["screen"])
                return removed
            if self.root:
                self._remove(self.root, removed)
            self.root = self._add(command["screen"], "window")
        elif op == "push":
            target["children"].append(self._add(command["screen"], {"child_of": command["target"]}))
        elif op == "pop":
            self._remove(target["children"].pop(), removed)
        elif op == "popToRoot":
            while len(target["children"]) > 1:
                self._remove(target["children"].pop(), removed)
        elif op in ("setStack", "setTabs"):
            listed = [s["id"] for s in command["screens"]]
            for child in target["children"]:
                if child not in listed:  # a child listed again stays, with what it presents (§6.3)
                    self._remove(child, removed)
            target["children"] = [self._keep(s) if s["id"] in target["children"]
                                  else self._add(s, {"child_of": command["target"]}) for s in command["screens"]]
            if op == "setTabs":
                target["selected"] = command["selected"]
        elif op == "present":
            if target["presented"]:
                self._remove(target["presented"], removed)
            target["presented"] = self._add(command["screen"], {"presented_over": command["target"]})
        elif op == "dismiss":
            if target["presented"]:
                self._remove(target["presented"], removed)
            target["presented"] = None
        elif op == "selectTab":
            target["selected"] = command["index"]
        elif op in ("showMaster", "showDetail"):
            slot = "master" if op == "showMaster" else "detail"
            if target[slot] == command["screen"]["id"]:
                self._keep(command["screen"])
                return removed
            if target[slot]:
                self._remove(target[slot], removed)
            target[slot] = self._add(command["screen"], {"child_of": command["target"]})
        else:
            raise ProtocolError("unknown command op %r" % op)
        return removed

    def visible(self):
        """The ids on screen, by §6.5.1's rules."""
        shown = set()

        def walk(sid, on):
            entry = self.screens[sid]
            if entry["presented"]:
                walk(entry["presented"], on)
                on_below = False
            else:
                on_below = on
            if on:
                shown.add(sid)
            kind = entry["screen"]["kind"]
            children = entry["children"]
            for i, child in enumerate(children):
                if kind == "tabs":
                    walk(child, on_below and i == entry["selected"])
                else:
                    walk(child, on_below and i == len(children) - 1)
            for child in (entry["master"], entry["detail"]):
                if child:
                    walk(child, on_below)

        if self.root:
            walk(self.root, True)
        return shown

    def reports(self, before, removed=()):
        """REPORT entries for a change: dismissals, then what became hidden, then what became visible (§6.5.1)."""
        after = self.visible()
        entries = [{"presentable": sid, "state": "dismissed"} for sid in removed]
        entries += [{"presentable": sid, "state": "hidden"} for sid in sorted(before - after) if sid in self.screens]
        entries += [{"presentable": sid, "state": "visible"} for sid in sorted(after - before)]
        return entries


def environment_without_runtime():
    env = dict(os.environ)
    for key in ("FLOWD_RUNTIME_DIR", "XDG_RUNTIME_DIR", "FLOWD_STATE_DIR", "FLOWD_APP"):
        env.pop(key, None)
    return env
