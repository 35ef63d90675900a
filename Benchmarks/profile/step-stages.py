#!/usr/bin/env python3
"""A lock-step step's wall-clock time, stage by stage, from the files Benchmarks/profile/zmq-stamps.c writes.

    cc -O2 -shared -fPIC -o zmq-stamps.so Benchmarks/profile/zmq-stamps.c -ldl -lzmq
    rm -rf /tmp/zmq-stamps && mkdir /tmp/zmq-stamps
    LD_PRELOAD=$PWD/zmq-stamps.so flowd-bench --systems flowd --clients wire,library --transport ipc \
        --samples 10000 --warmup 1000 --seconds 1 --repeat 1
    python3 Benchmarks/profile/step-stages.py /tmp/zmq-stamps --warmup 1000 --samples 10000

Every process's events carry CLOCK_MONOTONIC times (one clock for all), so a step's stamp (the stepper's time before
it hands the step on) is followed through the stepper's `zmq_send`, its libzmq I/O thread's `send`, the daemon's
`recv`, `zmq_msg_recv`, `zmq_send` of the COMMAND and `send`, the presenter's `recv` and `zmq_msg_recv`, and the
presenter's side-channel `go` (the library presenter sends it from its handler, right after taking its time; the
hand-written one after its `ACK`, and takes its time at `zmq_msg_recv`). Prints the medians per stage, per client
mode, then the two most common paths event by event (eventfd writes and poll wake-ups are the thread hand-offs).
The shim costs each event a clock read and a scan of its bytes (a few hundred ns): compare the modes, not absolutes.
"""
import argparse
import bisect
import glob
import os
import struct

ZMQ_SEND, ZMQ_RECV, SEND, RECV = 1, 2, 3, 4
EVENT = struct.Struct("<QQQIIBBB5x")
HEADER = 4096


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    (count,) = struct.unpack_from("<Q", data, 0)
    cmdline = data[8:HEADER].split(b"\0\0")[0].replace(b"\0", b" ").decode(errors="replace")
    events = []
    for i in range(min(count, 1 << 20)):
        time, s0, s1, tid, size, op, first, n = EVENT.unpack_from(data, HEADER + i * EVENT.size)
        if time == 0:
            continue
        events.append((time, op, tid, size, first, (s0, s1)[:n]))
    events.sort()
    return cmdline, events


def role(cmdline):
    words = cmdline.split()
    for name in ("stepper", "presenter"):
        if len(words) > 1 and words[1] == name:
            return name + (" library" if "--library" in words else " wire")
    return "daemon" if len(words) > 1 and words[1] == "daemon" else "other"


NAMES = {ZMQ_SEND: "zmq_send", ZMQ_RECV: "zmq_msg_recv", SEND: "send()", RECV: "recv()", 5: "eventfd write",
         6: "poll woken"}
STAGES = [
    "stepper: stamp -> STEP handed to libzmq (zmq_send)",
    "stepper: libzmq I/O thread woken, STEP written (send())",
    "kernel -> daemon's libzmq read (recv())",
    "daemon: libzmq -> its I/O thread (zmq_msg_recv)",
    "daemon: decode, core, encode (-> first zmq_send)",
    "daemon: -> its libzmq I/O thread writes the COMMAND (send())",
    "kernel -> presenter's libzmq read (recv())",
    "presenter: libzmq -> its thread (zmq_msg_recv)",
    "presenter: -> handler's side-channel `go` (zmq_send)",
]


def segment(events, times, start, end):
    """The process's events in [start, end], as (op, thread number in order of appearance, time)."""
    lo, hi = bisect.bisect_left(times, start), bisect.bisect_right(times, end)
    tids, out = {}, []
    for event in events[lo:hi]:
        number = tids.setdefault(event[2], len(tids))
        out.append((event[1], number, event[0]))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--warmup", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=10000)
    args = parser.parse_args()
    processes = [load(p) for p in glob.glob(os.path.join(args.folder, "*.bin"))]
    for mode in ("wire", "library"):
        def find(name):
            found = [i for i, (c, _) in enumerate(processes) if role(c) == name]
            return processes[found[0]][1] if found else None
        stepper, presenter = find("stepper " + mode), find("presenter " + mode)
        if stepper is None or presenter is None:
            continue
        sends = [e for e in stepper if e[1] == ZMQ_SEND and e[5]]
        lockstep = [e[5][0] for e in sends[args.warmup:args.warmup + args.samples]]
        wanted = set(lockstep)
        # The daemon of this mode: the one whose receives carry this mode's stamps.
        daemons = [e for c, e in processes if role(c) == "daemon" and any(
            x[1] == RECV and x[5] and x[5][0] in wanted for x in e[:200000])]
        daemon = daemons[0]
        columns = {"stepper": stepper, "daemon": daemon, "presenter": presenter}
        times = {k: [e[0] for e in v] for k, v in columns.items()}
        first = {}
        for name, events in columns.items():
            for event in events:
                for stamp in event[5]:
                    if stamp in wanted:
                        first.setdefault((name, event[1], stamp), event[0])
        go = [e[0] for e in presenter if e[1] == ZMQ_SEND and e[3] == 1 and e[4] == ord("g")]
        # Each process's part: stepper from the stamp to its libzmq send(); daemon from its recv() to its send() of
        # the COMMAND; presenter from its recv() to the side channel's `go`.
        signatures = {}
        stages = {}
        totals = []
        for stamp in lockstep:
            a, b = stamp, first.get(("stepper", SEND, stamp))
            c, d = first.get(("daemon", RECV, stamp)), first.get(("daemon", SEND, stamp))
            e = first.get(("presenter", RECV, stamp))
            if None in (b, c, d, e):
                continue
            k = bisect.bisect_left(go, e)
            if k == len(go):
                continue
            f = go[k]
            if not a <= b <= c <= d <= e <= f:
                continue
            parts = [("stepper", segment(stepper, times["stepper"], a, b)),
                     ("daemon", segment(daemon, times["daemon"], c, d)),
                     ("presenter", segment(presenter, times["presenter"], e, f))]
            def first_after(seg, op):
                return next((time for o, _, time in seg if o == op), None)
            marks = [a, first_after(parts[0][1], ZMQ_SEND), b, c, first_after(parts[1][1], ZMQ_RECV),
                     first_after(parts[1][1], ZMQ_SEND), d, e, first_after(parts[2][1], ZMQ_RECV), f]
            if None not in marks:
                for name, x, y in zip(STAGES, marks, marks[1:]):
                    stages.setdefault(name, []).append(y - x)
            signature = tuple((name, tuple((op, t) for op, t, _ in seg)) for name, seg in parts)
            points = [("stepper", -1, 0, a)] + [(name, op, t, time) for name, seg in parts for op, t, time in seg]
            signatures.setdefault(signature, []).append(points)
            totals.append(f - a)
        totals.sort()
        print(f"== {mode}: {len(totals)} of {len(lockstep)} lock-step steps traced; stamp -> go p50 "
              f"{totals[len(totals) // 2] / 1000:.1f} us")
        for name in STAGES:
            values = sorted(stages.get(name, [0]))
            q = lambda p: values[min(len(values) - 1, int(p * len(values)))] / 1000
            print(f"  {name:62s} p50 {q(0.5):6.1f} us (p25 {q(0.25):5.1f}, p75 {q(0.75):5.1f})")
        ranked = sorted(signatures.items(), key=lambda kv: -len(kv[1]))
        for signature, steps in ranked[:2]:
            print(f"  -- path taken by {len(steps)} steps ({100 * len(steps) / len(totals):.0f} %), medians:")
            total = [s[-1][3] - s[0][3] for s in steps]
            total.sort()
            for j in range(1, len(steps[0])):
                gaps = sorted(s[j][3] - s[j - 1][3] for s in steps)
                name, op, thread, _ = steps[0][j]
                print(f"    {name:9s} thread {thread} {NAMES[op]:13s} +{gaps[len(gaps) // 2] / 1000:7.1f} us"
                      f"  (p25 {gaps[len(gaps) // 4] / 1000:6.1f}, p75 {gaps[3 * len(gaps) // 4] / 1000:6.1f})")
            print(f"    total {total[len(total) // 2] / 1000:.1f} us")


if __name__ == "__main__":
    main()
