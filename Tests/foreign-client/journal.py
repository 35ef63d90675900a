"""The journal unavailable (PROTOCOL.md §3 journalUnavailable, §7 HEALTH; RELIABILITY.md "Disk full"): flowd's
journal writes fail, as on a full disk, because its file size limit (RLIMIT_FSIZE, set on the running process, which
ignores SIGXFSZ as RELIABILITY.md says) is just above the journal's size; the limit lifted, the writes go through again."""

import glob
import os
import resource
import signal

from flowd_client import connect
from harness import KINDS, check, running, section, wait_until


def journal_size(run):
    files = glob.glob(os.path.join(run.state_dir, "journal-*"))
    check(len(files) == 1, "one journal file in the state directory", files)
    return os.path.getsize(files[0])


def journal_unavailable(flowd, flow_file):
    section("journal unavailable: state changes refused, reads served, held replies released (RELIABILITY.md)")
    with running(flowd, flow_file) as run:
        op = connect(run.ctx, run.control, "operator", "foreign-operator")
        watcher = connect(run.ctx, run.control, "operator", "foreign-watcher")
        st = connect(run.ctx, run.control, "stepper", "foreign-services", serves=KINDS)
        wishlist = st.expect_type("ATTACH", session="default", kind="movies.wishlist")["attachment"]
        check(watcher.request("HEALTH")["journal"]["available"] is True, "the journal is writable at first")
        with open("/proc/%d/status" % run.process.pid) as status:
            ignored = int(next(line for line in status if line.startswith("SigIgn:")).split()[1], 16)
        check(ignored & (1 << (signal.SIGXFSZ - 1)), "flowd ignores SIGXFSZ: a write past a file-size limit fails "
              "with EFBIG, as on a full disk, and does not end it (RELIABILITY.md)", hex(ignored))
        limit = journal_size(run) + 2048
        # The soft limit only: lifting it again needs no privilege.
        resource.prlimit(run.process.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        # Deep links until one's journal write fails: its reply is held, and HEALTH (another connection) says so.
        movie, held = 0, None
        while held is None:
            check(movie < 500, "a journal write failed within 500 deep links", movie)
            movie += 1
            req = op.take_req()
            op.send("DEEPLINK", {"req": req, "session": "default", "step": {"name": "movieIsPicked",
                                                                             "payload": movie}})
            while True:
                if op.sock.poll(50):
                    t, body = op.expect(lambda t, b: b.get("req") == req, "the DEEPLINK's reply")
                    check(t == "OK", "a deep link before the failure", body)
                    break
                if watcher.request("HEALTH")["status"] == "degraded":
                    held = req
                    break
        health = watcher.request("HEALTH")
        check(health["status"] == "degraded" and health["journal"]["available"] is False,
              "HEALTH while the journal cannot be written", health)
        for conn, msg_type, body in (
                (watcher, "CREATE_SESSION", {"session": "refused"}),
                (watcher, "DEEPLINK", {"session": "default", "step": {"name": "movieIsPicked", "payload": 1}}),
                (st, "STEP", {"session": "default", "attachment": wishlist,
                              "step": {"name": "movieIsPicked", "payload": 1}})):
            error = conn.request_error(msg_type, body, "journalUnavailable")
            check(error["type"] == msg_type, "journalUnavailable names the type", error)
        sessions = [s["id"] for s in watcher.request("SESSIONS")["sessions"]]
        check(sessions == ["default"], "SESSIONS is served, and nothing refused was created", sessions)
        watcher.request("TREE", {"session": "default"})
        watcher.request("DESCRIBE")
        check(watcher.request("HEALTH")["counters"]["errors"].get("journalUnavailable") == 3,
              "HEALTH counts the refusals")

        resource.prlimit(run.process.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        t, body = op.expect(lambda t, b: b.get("req") == held, "the held reply, once the journal is writable")
        check(t == "OK" and body["result"]["navigations"] >= 1, "the held deep link was applied", body)
        wait_until("HEALTH ok again", lambda: watcher.request("HEALTH")["status"] == "ok")
        check(watcher.request("HEALTH")["journal"]["available"] is True, "the journal is available again")
        check(watcher.request("CREATE_SESSION", {"session": "accepted"}) == {"created": True}, "changes accepted")
        seq = watcher.request("SESSIONS")["sessions"][1]["seq"]
        check(watcher.request("SESSIONS")["sessions"][0]["id"] == "accepted", "sorted: accepted, default")
        run.stop(signal.SIGKILL)
        run.start()
        again = connect(run.ctx, run.control, "operator", "foreign-operator")
        sessions = again.request("SESSIONS")["sessions"]
        check([s["id"] for s in sessions] == ["accepted", "default"] and sessions[1]["seq"] == seq,
              "everything acknowledged survives a restart", sessions)
        for conn in (op, watcher, st, again):
            conn.close()
