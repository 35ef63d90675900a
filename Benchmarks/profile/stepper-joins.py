#!/usr/bin/python3
"""A burst of stepper joins against one flowd: what each HELLO costs as stepper peers pile up (docs/RELIABILITY.md,
`stepper-names`).

    Benchmarks/profile/stepper-joins.py FLOWD [--count 2000] [--kinds 9] [--no-state] [--idle SECONDS] [--keep]

Starts FLOWD on ipc:// endpoints in a temporary folder (with a state directory unless --no-state, --no-journal), then N stepper
processes' connections say HELLO one after another, each a distinct name serving the first --kinds kinds of the movie
file, each waiting for its WELCOME. Prints, per quarter of the joins, the wall time and flowd's CPU time (the process,
and its busiest thread: the I/O thread), then the `stepper-names` file's size. With --idle, then waits SECONDS with
every connection idle (their HELLOs ask for a 60 s heartbeat, so none is counted dead) and prints flowd's CPU time
over that wait: the daemon's heartbeats to every peer and its timers. A measurement, not a test.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "foreign-client"))
import zmq  # noqa: E402

from flowd_client import Connection, environment_without_runtime  # noqa: E402
from harness import KINDS  # noqa: E402

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def cpu_seconds(pid):
    """flowd's CPU seconds (user + system): the whole process and its busiest thread (name, seconds)."""
    tick = os.sysconf("SC_CLK_TCK")

    def parse(path):
        with open(path) as f:
            text = f.read()
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        return name, (int(fields[11]) + int(fields[12])) / tick

    _, total = parse("/proc/%d/stat" % pid)
    busiest = ("", 0.0)
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            name, seconds = parse("/proc/%d/task/%s/stat" % (pid, task))
        except OSError:
            continue
        if seconds > busiest[1]:
            busiest = (name, seconds)
        if name == "flowd-io":
            io_thread[0] = seconds
    return total, busiest


io_thread = [0.0]  # the I/O thread's CPU seconds at the last cpu_seconds()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("flowd")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--kinds", type=int, default=len(KINDS))
    parser.add_argument("--no-state", action="store_true", help="flowd without a state directory (--no-journal)")
    parser.add_argument("--idle", type=float, default=0, metavar="SECONDS",
                        help="then measure flowd's CPU with every connection idle for SECONDS")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (flowd.log, state)")
    parser.add_argument("--perf", metavar="DATA", help="perf record -g flowd's joins into DATA")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="flowd-joins-")
    control = "ipc://" + os.path.join(folder, "control.sock")
    command = [os.path.abspath(args.flowd), "--app", os.path.join(REPO, "Examples", "flowfiles", "movies.flows.yaml"),
               "--runtime-dir", folder, "--control", control, "--events", "ipc://" + os.path.join(folder, "ev.sock"),
               "--log-level", "notice"]
    command += ["--no-journal"] if args.no_state else ["--state-dir", os.path.join(folder, "state")]
    log = open(os.path.join(folder, "flowd.log"), "wb")
    flowd = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment_without_runtime())
    ctx = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, args.count + 64)  # libzmq's default is 1023
    connections = []
    try:
        deadline = time.monotonic() + 120
        while not os.path.exists(os.path.join(folder, "control.sock")):
            if flowd.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("flowd did not start; see %s" % os.path.join(folder, "flowd.log"))
            time.sleep(0.05)
        kinds = KINDS[:args.kinds]
        perf = None
        if args.perf:
            perf = subprocess.Popen(["perf", "record", "-g", "-o", args.perf, "-p", str(flowd.pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)  # perf attaches
        quarter = max(1, args.count // 4)
        began = time.monotonic()
        cpu_began, (_, thread_began) = cpu_seconds(flowd.pid)
        mark, cpu_mark, thread_mark = began, cpu_began, thread_began
        for index in range(args.count):
            conn = Connection(ctx, control, timeout_s=120)
            conn.hello("stepper", "joiner-%05d" % index, serves=kinds)
            connections.append(conn)
            if (index + 1) % quarter == 0 or index + 1 == args.count:
                now = time.monotonic()
                cpu, (thread, thread_cpu) = cpu_seconds(flowd.pid)
                print("joins %5d-%5d: wall %6.2f s, flowd cpu %6.2f s, busiest thread (%s) %6.2f s"
                      % (index + 2 - quarter if (index + 1) % quarter == 0 else index + 1 - (index % quarter),
                         index + 1, now - mark, cpu - cpu_mark, thread, thread_cpu - thread_mark), flush=True)
                mark, cpu_mark, thread_mark = now, cpu, thread_cpu
        if perf is not None:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        cpu, (thread, thread_cpu) = cpu_seconds(flowd.pid)
        print("total: %d joins, %d kinds each: wall %.2f s, flowd cpu %.2f s, busiest thread (%s) %.2f s"
              % (args.count, len(kinds), time.monotonic() - began, cpu - cpu_began, thread, thread_cpu - thread_began))
        if args.idle > 0:
            cpu_idle, _ = cpu_seconds(flowd.pid)
            io_idle = io_thread[0]
            time.sleep(args.idle)
            cpu, _ = cpu_seconds(flowd.pid)
            print("idle: %d peers for %.0f s: flowd cpu %.2f s, of which the I/O thread (flowd-io) %.2f s"
                  % (args.count, args.idle, cpu - cpu_idle, io_thread[0] - io_idle))
        names = os.path.join(folder, "state", "stepper-names")
        if os.path.exists(names):
            print("stepper-names: %d bytes" % os.path.getsize(names))
    finally:
        for conn in connections:
            conn.close()
        ctx.destroy(linger=0)
        if flowd.poll() is None:
            flowd.send_signal(signal.SIGTERM)
            try:
                flowd.wait(timeout=60)
            except subprocess.TimeoutExpired:
                flowd.kill()
                flowd.wait()
        log.close()
        if args.keep:
            print("kept: %s" % folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
