"""CURVE and the allow-list (PROTOCOL.md §1.1, §3; SECURITY.md): keys, roles, refusals, the events socket."""

import json
import os
import signal
import stat
import subprocess

import zmq

from flowd_client import Connection, connect
from harness import Events, check, running, section, wait_until

Z85 = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")


def read_key_file(path):
    """The key a key file holds: SECURITY.md's format (one 40-character Z85 line; empty and comment lines skipped)."""
    with open(path) as f:
        lines = [line.rstrip("\n") for line in f]
    keys = [line for line in lines if line and line != "#" and not line.startswith("# ")]
    check(len(keys) == 1 and len(keys[0]) == 40 and set(keys[0]) <= Z85, "a key file holds one Z85 key", path, lines)
    return keys[0].encode()


def write_key_file(path, key, mode):
    with open(path, "w") as f:
        f.write("# written by the foreign client\n\n%s\n" % key.decode())
    os.chmod(path, mode)


def daemon_keys(flowd, keys_dir):
    """The daemon's pair: `flowctl keygen --out` when flowctl is built beside flowd (its files checked against
    SECURITY.md), else pyzmq's."""
    flowctl = os.path.join(os.path.dirname(flowd), "flowctl")
    if not os.access(flowctl, os.X_OK):
        public, secret = zmq.curve_keypair()
        write_key_file(os.path.join(keys_dir, "flowd.key"), secret, 0o600)
        return public
    base = os.path.join(keys_dir, "flowd")
    subprocess.run([flowctl, "keygen", "--out", base], check=True, capture_output=True, timeout=60)
    mode = stat.S_IMODE(os.stat(base + ".key").st_mode)
    check(mode == 0o600, "flowctl keygen --out makes the secret file mode 0600", oct(mode))
    secret, public = read_key_file(base + ".key"), read_key_file(base + ".pub")
    check(zmq.curve_public(secret) == public, "flowd.pub is the public key of flowd.key")
    again = subprocess.run([flowctl, "keygen", "--out", base], capture_output=True, timeout=60)
    check(again.returncode != 0 and read_key_file(base + ".key") == secret, "keygen never overwrites a secret file",
          again.returncode)
    printed = subprocess.run([flowctl, "keygen"], check=True, capture_output=True, timeout=60, text=True).stdout
    words = [w for w in printed.split() if len(w) == 40 and set(w) <= Z85]
    check(len(words) == 2 and {zmq.curve_public(w.encode()) for w in words} & {w.encode() for w in words},
          "flowctl keygen prints a pair", printed)
    return public


def silent(sock, timeout_ms):
    """True when nothing arrives on `sock` within the bounded wait (after the daemon showed it handled the cause)."""
    return not sock.poll(timeout_ms)


def curve(flowd, flow_file):
    section("security: flowd with a secret key and an allow-list (SECURITY.md §2)")
    keys = {role: zmq.curve_keypair() for role in ("operator", "stepper", "presenter", "other-presenter")}
    config = {"security": {
        "secret_key_file": "keys/flowd.key",
        "clients": [
            {"name": "ops", "public_key": keys["operator"][0].decode(), "role": "operator"},
            {"name": "svc", "public_key": keys["stepper"][0].decode(), "role": "stepper",
             "steps": ["movieIsPicked", "castIsPicked"], "kinds": ["movies.wishlist", "movies.detail"]},
            {"name": "tui", "public_key": keys["presenter"][0].decode(), "role": "presenter",
             "sessions": ["default", "kiosk"]}],
        "clients_file": "keys/more-clients.json"}}
    with running(flowd, flow_file, args=["--log-level", "info"], config=config, start=False) as run:
        keys_dir = os.path.join(run.dir, "keys")
        os.mkdir(keys_dir, 0o700)
        with open(os.path.join(keys_dir, "more-clients.json"), "w") as f:
            f.write('[{"name": "tui2", "public_key": "%s", "role": "presenter"}]' % keys["other-presenter"][0].decode())
        server = daemon_keys(flowd, keys_dir)
        key_file = os.path.join(keys_dir, "flowd.key")
        os.chmod(key_file, 0o604)
        run.refused_start()
        os.chmod(key_file, 0o640)  # group-readable is accepted
        run.start()
        ready = wait_until("the ready log line (info)", lambda: "curve=on" in run.read_log() and run.read_log())
        check("server_key=" + server.decode() in ready and "clients=4" in ready,
              "the ready line says curve=on, the server key and the clients", ready[-600:])

        def pair(role, server_key=server):
            return (server_key, keys[role][0], keys[role][1])

        op = connect(run.ctx, run.control, "operator", "foreign-operator", curve=pair("operator"))
        counters = op.request("HEALTH")["counters"]
        check(counters.get("auth_denied") == 0 and counters.get("peers_revoked") == 0,
              "with keys, HEALTH counts auth_denied and peers_revoked", counters)

        section("security: an unknown key, a plaintext client, a wrong server key get nothing (§1.1)")
        stranger_keys = zmq.curve_keypair()
        # Not ZMQ_IMMEDIATE: a connection whose handshake never completes would never take the message.
        queued = {zmq.IMMEDIATE: 0}
        stranger = Connection(run.ctx, run.control, curve=(server, stranger_keys[0], stranger_keys[1]),
                              options=queued)
        stranger.send("HELLO", {"role": "operator", "name": "stranger", "instance": "s", "heartbeat_ms": 60000,
                                "req": 1})
        denied = wait_until("auth_denied counts the unknown key",
                            lambda: op.request("HEALTH")["counters"]["auth_denied"])
        check(silent(stranger.sock, 300), "an unknown key gets no WELCOME, no ERROR")
        check("connection refused by ZAP" in run.read_log() and "key=" + stranger_keys[0].decode() in run.read_log(),
              "the ZAP refusal is logged with the key")
        plain = Connection(run.ctx, run.control, options=queued)
        plain.send("HELLO", {"role": "operator", "name": "plain", "instance": "p", "heartbeat_ms": 60000, "req": 1})
        wrong = Connection(run.ctx, run.control, curve=pair("operator", server_key=zmq.curve_keypair()[0]),
                           options=queued)
        wrong.send("HELLO", {"role": "operator", "name": "wrong", "instance": "w", "heartbeat_ms": 60000, "req": 1})
        check(silent(plain.sock, 500) and silent(wrong.sock, 500), "plaintext and a wrong server key get nothing")
        check(op.request("HEALTH")["counters"]["auth_denied"] == denied,
              "plaintext clients fail before ZAP: not counted")
        for conn in (stranger, plain, wrong):
            conn.close()

        section("security: every role held to its key (§3, §5.3, §6.1)")
        conn = Connection(run.ctx, run.control, curve=pair("operator"))
        error = conn.request_error("HELLO", {"role": "presenter", "name": "ops-as-tui", "instance": "x",
                                             "heartbeat_ms": 60000}, "forbidden")
        check(error["type"] == "HELLO" and conn.welcome is None, "a HELLO in another role than the key's", error)
        conn.hello("operator", "foreign-operator-2")  # the same connection, in its key's role
        conn.close()
        st = Connection(run.ctx, run.control, curve=pair("stepper"))
        st.request_error("HELLO", {"role": "stepper", "name": "svc", "instance": "y", "heartbeat_ms": 60000,
                                   "serves": ["movies.wishlist", "movies.watched"]}, "forbidden")
        st.hello("stepper", "svc", serves=["movies.wishlist", "movies.detail"], adapts=True)
        wishlist = st.expect_type("ATTACH", session="default", kind="movies.wishlist")["attachment"]
        # A step name outside the key's steps is refused before the session, the names and the attachment.
        st.request_error("STEP", {"session": "nowhere", "attachment": 999999, "step": {"name": "aboutIsRequired"}},
                         "forbidden")
        st.request_error("REPORT", {"session": "default", "reports": []}, "forbidden")
        pr = connect(run.ctx, run.control, "presenter", "tui", curve=pair("presenter"))
        pr.request_error("SYNC", {"session": "elsewhere", "last_seq": 0, "create": True}, "forbidden")
        listed = [s["id"] for s in op.request("SESSIONS")["sessions"]]
        check("elsewhere" not in listed, "a forbidden SYNC creates nothing", listed)
        synced = pr.request("SYNC", {"session": "default", "last_seq": 0, "create": False})
        check(synced["mode"] == "snapshot", "a SYNC of a session the key may host", synced)
        pr.request_error("STEP", {"session": "default", "attachment": wishlist, "step": {"name": "movieIsPicked"}},
                         "forbidden")
        check(st.request("STEP", {"session": "default", "attachment": wishlist,
                                  "step": {"name": "movieIsPicked", "payload": 1}}) == {"accepted": True},
              "a step the key may emit is carried out")
        # Another key claiming the presenter's name takes nothing over (tui2 comes from the clients file).
        other = connect(run.ctx, run.control, "presenter", "tui", curve=pair("other-presenter"))
        other.request_error("SYNC", {"session": "default", "last_seq": 0, "create": False}, "sessionHosted")
        pr.drain()
        check(not [b for t, b in pr.inbox if t == "ERROR" and b.get("code") == "replaced"],
              "a HELLO with the same name under another key does not replace", pr.inbox)
        check(op.request("HEALTH")["counters"]["errors"].get("forbidden", 0) >= 6, "forbidden is counted")
        # What else each role sends: an operator's DESCRIBE and END_SESSION, a stepper's ADAPTED.
        check(op.request("DESCRIBE")["app_version"], "an operator's DESCRIBE")
        check(op.request("CREATE_SESSION", {"session": "kiosk"}) == {"created": True}, "an operator's CREATE_SESSION")
        check(op.request("END_SESSION", {"session": "kiosk"})["presenter"] is None, "an operator's END_SESSION")
        op.request("DEEPLINK", {"session": "default", "step": {"name": "aboutIsRequired"}})
        question = st.expect_type("ADAPT", session="default")
        st.send("ADAPTED", {"session": "default", "request": question["request"], "answer": "refuse"})
        wait_until("the stepper's ADAPTED answered the question",
                   lambda: op.request("HEALTH")["counters"].get("adapts") == {"refuse": 1})

        section("security: only operators' keys subscribe to the events socket (SECURITY.md §1)")
        refused = Events(run.ctx, run.events, curve=pair("presenter"))
        wait_until("auth_denied counts the presenter's key on the events socket",
                   lambda: op.request("HEALTH")["counters"]["auth_denied"] > denied)
        events = Events(run.ctx, run.events, curve=pair("operator"))
        events.await_live(op)
        check(silent(refused.sock, 100), "a refused subscriber gets no events")
        for sock in (events.sock, refused.sock):
            sock.close(0)

        section("security: SIGHUP reads the allow-list again (SECURITY.md, Changing the allow-list)")
        clients_file = os.path.join(keys_dir, "more-clients.json")
        with open(clients_file, "w") as f:
            f.write("not a list")
        run.process.send_signal(signal.SIGHUP)
        wait_until("the bad allow-list refused", lambda: "the allow-list was not replaced" in run.read_log())
        other.request_error("REPORT", {"session": "default", "reports": []}, "notHost")  # still welcomed
        with open(clients_file, "w") as f:
            f.write("[]")
        run.process.send_signal(signal.SIGHUP)
        wait_until("the key taken off the list revoked", lambda: op.request("HEALTH")["counters"]["peers_revoked"])
        check(op.request("HEALTH")["counters"]["peers_revoked"] == 1, "only that peer was revoked")
        other.request_error("REPORT", {"session": "default", "reports": []}, "notWelcome")
        denied = op.request("HEALTH")["counters"]["auth_denied"]
        again = Connection(run.ctx, run.control, curve=pair("other-presenter"), options=queued)
        again.send("HELLO", {"role": "presenter", "name": "tui", "instance": "z", "heartbeat_ms": 60000, "req": 1})
        wait_until("its new connection refused by ZAP",
                   lambda: op.request("HEALTH")["counters"]["auth_denied"] > denied)
        check(silent(again.sock, 100), "a revoked key gets nothing")
        again.close()
        check(pr.request("REPORT", {"session": "default", "reports": []}) == {}, "the other peers keep everything")

        section("security: SIGHUP taking a role out of events_roles refuses its new subscribers only (SECURITY.md §4)")
        config_path = os.path.join(run.dir, "flowd.json")

        def reload_events_roles(roles):
            with open(config_path) as f:
                config = json.load(f)
            config["security"]["events_roles"] = roles
            with open(config_path, "w") as f:
                json.dump(config, f)
            marker = "SIGHUP: allow-list read again"
            reloads = run.read_log().count(marker)
            run.process.send_signal(signal.SIGHUP)
            wait_until("the allow-list read again", lambda: run.read_log().count(marker) > reloads)

        reload_events_roles(["operator", "presenter"])
        watcher = Events(run.ctx, run.events, curve=pair("presenter"))
        watcher.await_live(op)
        reload_events_roles(["operator"])
        denied = op.request("HEALTH")["counters"]["auth_denied"]
        late = Events(run.ctx, run.events, curve=pair("presenter"))
        wait_until("the presenter's new subscription refused by ZAP",
                   lambda: op.request("HEALTH")["counters"]["auth_denied"] > denied)
        watcher.seen.clear()
        watcher.await_live(op)  # the subscription made before keeps receiving
        check(silent(late.sock, 100), "a subscriber refused after the SIGHUP gets no events")
        check(op.request("HEALTH")["counters"]["peers_revoked"] == 1, "events_roles revokes no control peer")
        for sock in (watcher.sock, late.sock):
            sock.close(0)
        for conn in (st, pr, other, op):
            conn.send("BYE", {})
            conn.close()
        check(run.alive(), "flowd is still running")
