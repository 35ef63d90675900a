#!/usr/bin/env python3
"""Profiles flowd's daemon through one flowd-bench run: CPU, system calls and context switches per step, by thread,
and a `perf record -g` that stages.py splits into the stages of a step (docs/PERFORMANCE.md "Profiling").

    python3 Benchmarks/profile/profile-run.py lockstep   --out /tmp/prof-ls  [--journal interval] [--transport ipc]
    python3 Benchmarks/profile/profile-run.py throughput --out /tmp/prof-tp  [--bench .build-bench/release/flowd-bench]

`lockstep` runs the lock-step phase only (one step in flight: what a single step's latency is made of), `throughput`
runs flat out (window 256) after a few hundred lock-step steps. `perf stat` and `perf record` attach to the daemon
once its I/O threads exist and end when it exits, so every step it handled is counted (flowd-bench's JSON gives the
number); its stop is in the totals too, which is why the lock-step run is long (`--steps`). Needs `perf`
with tracepoints (root, or perf_event_paranoid ≤ 1) and swift-demangle; writes into --out:
`bench.json`, `stat.txt` (perf stat --per-thread), `perf.data`, `stages.txt`, `stages.svg`, `summary.txt`.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def daemon_pids(bench_pid):
    """The `flowd-bench daemon` processes started by the bench (its children)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                arguments = cmdline.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if parent == bench_pid and len(arguments) > 1 and arguments[1] == b"daemon":
            found.append((int(pid), b"--state-dir" in arguments))
    return found


def thread_names(pid):
    names = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/comm") as comm:
                names.add(comm.read().strip())
    except OSError:
        pass
    return names


def parse_stat(path):
    """perf stat -x, --per-thread: {thread: {event: value}}."""
    threads = {}
    with open(path) as stat:
        for line in stat:
            fields = line.strip().split(",")
            if len(fields) < 4 or line.startswith("#"):
                continue
            thread, value, event = fields[0], fields[1], fields[3]
            try:
                number = float(value)
            except ValueError:
                continue
            threads.setdefault(thread, {})[event] = number
    return threads


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("phase", choices=["lockstep", "throughput"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--bench", default=".build-bench/release/flowd-bench")
    parser.add_argument("--transport", default="ipc")
    parser.add_argument("--journal", default="interval", help="never: the plain daemon; else the fsync policy")
    parser.add_argument("--steps", type=int, default=40000, help="lock-step steps (lockstep)")
    parser.add_argument("--seconds", type=float, default=6, help="seconds flat out (throughput)")
    parser.add_argument("--frequency", type=int, default=1999)
    parser.add_argument("--no-record", action="store_true", help="perf stat only (no perf record, no stages)")
    parser.add_argument("--mallocs", action="store_true",
                        help="count malloc calls too: needs `perf probe -x <libc.so.6> --add malloc` first")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    out = lambda name: os.path.join(arguments.out, name)

    if arguments.phase == "lockstep":
        phase = ["--warmup", "500", "--samples", str(arguments.steps), "--seconds", "0.01"]
    else:
        phase = ["--warmup", "50", "--samples", "200", "--seconds", str(arguments.seconds)]
    journaled = arguments.journal != "never"
    command = [arguments.bench, "--transport", arguments.transport, "--systems", "flowd", "--clients", "wire",
               "--repeat", "1", "--paced-seconds", "0", "--json-out", out("bench.json")] + phase
    if journaled:
        command += ["--journal", arguments.journal]
    bench = subprocess.Popen(command, stdout=open(out("bench.txt"), "w"), stderr=subprocess.STDOUT)
    # With a journal the bench runs the plain daemon first, then the journaled one: profile the one asked for.
    perfs, daemon = [], None
    while bench.poll() is None and daemon is None:
        for pid, has_journal in daemon_pids(bench.pid):
            if has_journal == journaled:
                daemon = pid
        time.sleep(0.005)
    if daemon is None:
        sys.exit(f"profile-run: no daemon seen; see {out('bench.txt')}")
    # perf attaches to the threads that exist (a thread made later counts for its parent): wait for the I/O threads.
    while bench.poll() is None and not {"flowd-io", "ZMQbg/IO/0"} <= thread_names(daemon):
        time.sleep(0.005)
    events = "task-clock,context-switches,raw_syscalls:sys_enter" + (",probe_libc:malloc" if arguments.mallocs else "")
    perfs.append(subprocess.Popen(["perf", "stat", "-x,", "--per-thread", "-e", events, "-p", str(daemon),
                                   "-o", out("stat.txt")], stderr=subprocess.DEVNULL))
    if not arguments.no_record:
        perfs.append(subprocess.Popen(["perf", "record", "-q", "-F", str(arguments.frequency), "-g", "-p", str(daemon),
                                       "-o", out("perf.data")], stderr=subprocess.DEVNULL))
    bench.wait()
    for perf in perfs:
        perf.wait()
    if bench.returncode != 0:
        sys.exit(f"profile-run: flowd-bench failed; see {out('bench.txt')}")

    with open(out("bench.json")) as report:
        runs = json.load(report)["runs"]
    run = [r for r in runs if (r.get("journal") is not None) == journaled][0]
    steps = run["stepper"]["latency_steps"] + run["stepper"]["throughput_steps"]
    threads = parse_stat(out("stat.txt"))
    lines = [f"{arguments.phase}, {arguments.transport}, journal {arguments.journal}: {steps} steps "
             f"({run['stepper']['latency_steps']} lock-step, {run['stepper']['throughput_steps']} flat out, "
             f"{run['presenter']['throughput_per_second'] / 1000:.1f} k/s), load {os.getloadavg()[0]:.1f}",
             "thread | CPU µs/step | system calls/step | context switches/step | mallocs/step"]
    total = {"task-clock": 0.0, "raw_syscalls:sys_enter": 0.0, "context-switches": 0.0, "probe_libc:malloc": 0.0}
    for thread, counts in sorted(threads.items(), key=lambda item: -item[1].get("task-clock", 0)):
        if counts.get("task-clock", 0) < 1:
            continue
        for key in total:
            total[key] += counts.get(key, 0)
        lines.append(f"{thread} | {counts.get('task-clock', 0) * 1000 / steps:.2f} | "
                     f"{counts.get('raw_syscalls:sys_enter', 0) / steps:.2f} | "
                     f"{counts.get('context-switches', 0) / steps:.2f} | "
                     f"{counts.get('probe_libc:malloc', 0) / steps:.2f}")
    cpu_us = total["task-clock"] * 1000 / steps
    lines.append(f"all | {cpu_us:.2f} | {total['raw_syscalls:sys_enter'] / steps:.2f} | "
                 f"{total['context-switches'] / steps:.2f} | {total['probe_libc:malloc'] / steps:.2f}")
    if arguments.no_record:
        with open(out("summary.txt"), "w") as text:
            text.write("\n".join(lines) + "\n")
        print("\n".join(lines))
        return
    script = subprocess.Popen(["perf", "script", "-i", out("perf.data")], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    demangled = subprocess.Popen(["swift-demangle", "--simplified"], stdin=script.stdout, stdout=subprocess.PIPE)
    stages = subprocess.run([sys.executable, os.path.join(HERE, "stages.py"), "--cpu-us", f"{cpu_us:.2f}",
                             "--symbols", os.path.realpath(arguments.bench),
                             "--svg", out("stages.svg"),
                             "--title", f"Where flowd's CPU per step goes ({arguments.phase}, {arguments.transport}, "
                                        f"journal {arguments.journal}, perf)"],
                            stdin=demangled.stdout, capture_output=True, text=True)
    with open(out("stages.txt"), "w") as table:
        table.write(stages.stdout + stages.stderr)
    summary = "\n".join(lines) + "\n\n" + stages.stdout
    with open(out("summary.txt"), "w") as text:
        text.write(summary)
    print(summary)


if __name__ == "__main__":
    main()
