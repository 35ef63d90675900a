#!/usr/bin/env python3
"""Counts the instructions flowd's daemon executes per step (all its threads, libzmq's and the kernel's excluded:
callgrind counts user-space instructions only) during flowd-bench's throughput phase, with callgrind
(docs/PERFORMANCE.md "Profiling"). Instruction counts do not depend on the machine's load: the same binary and input
give the same count within a fraction of a percent.

    python3 Benchmarks/profile/callgrind-run.py --out /tmp/cg [--window 256] [--seconds 20] [--journal interval]

The daemon runs under `valgrind --tool=callgrind --instr-atstart=no`; flowd-bench's `--phase-command` turns
callgrind's instrumentation on when the throughput phase starts and off when it ends (`callgrind_control -i`, about 0.3 s late at
both ends, so the steps counted are the phase's within a few tenths of a percent at 20 s). Instructions per step are
the collected total over the stepper's throughput steps. `--window 1` is one step in flight (a batch of one), 256
the bench's flat out. The daemon is 50-100× slower under callgrind, so the clients are never what limits it.

Valgrind 3.19 (Debian 12) cannot read the DWARF 5 of Swift 6's executables and crashes in libdispatch's
`sigsuspend`: the script runs a copy of flowd-bench without its debug sections (symbols kept) and preloads
`sigsuspend-copy.c`. flowd-bench runs plain flowd, then the journaled one (`--journal none`: plain only); each gets
its profile. Writes into --out: `callgrind.<plain|journal>.out`, `annotate.<…>.inclusive.txt` and `.self.txt`
(callgrind_annotate), `bench.json`, `summary.txt` (instructions per step).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build-bench/release/flowd-bench"))
    parser.add_argument("--journal", default="interval", help="fsync policy, or 'none' for plain flowd")
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--transport", default="ipc")
    parser.add_argument("--ui-screens", type=int, default=0)
    arguments = parser.parse_args()
    out = os.path.abspath(arguments.out)
    os.makedirs(out, exist_ok=True)

    shim = os.path.join(out, "sigsuspend-copy.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(HERE, "sigsuspend-copy.c")], check=True)
    bench = os.path.join(out, "flowd-bench")
    shutil.copyfile(arguments.bench, bench)
    os.chmod(bench, 0o755)
    subprocess.run(["strip", "--strip-debug", bench], check=True)
    toggle = os.path.join(out, "toggle.sh")
    pids = os.path.join(out, "pids.txt")
    with open(toggle, "w") as script:
        script.write(
            '#!/bin/sh\nif [ "$1" = start ]; then echo "$2" >> ' + pids + '; state=on; else state=off; fi\n'
            'exec callgrind_control -i "$state" "$2"\n'
        )
    os.chmod(toggle, 0o755)
    if os.path.exists(pids):
        os.remove(pids)

    # Plain flowd runs, then the journaled one (flowd-bench's order): one profile each, by pid.
    prefix = (
        f"env LD_PRELOAD={shim} valgrind --tool=callgrind --fair-sched=yes --instr-atstart=no "
        f"--callgrind-out-file={out}/callgrind.out.%p"
    )
    command = [
        bench, "--systems", "flowd", "--clients", "wire", "--transport", arguments.transport,
        "--samples", "50", "--warmup", "50", "--seconds", str(arguments.seconds), "--repeat", "1",
        "--window", str(arguments.window), "--ui-screens", str(arguments.ui_screens),
        "--daemon-prefix", prefix, "--phase-command", toggle, "--json-out", os.path.join(out, "bench.json"),
    ]
    if arguments.journal != "none":
        command += ["--journal", arguments.journal]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    with open(os.path.join(out, "bench.json")) as results:
        runs = [run for run in json.load(results)["runs"] if run["system"] == "flowd"]
    with open(pids) as listed:
        order = [line.strip() for line in listed if line.strip()]
    summary = ""
    for run, pid in zip(runs, order):
        name = "journal" if run.get("journal") is not None else "plain"
        profile = os.path.join(out, f"callgrind.out.{pid}")
        os.replace(profile, os.path.join(out, f"callgrind.{name}.out"))
        profile = os.path.join(out, f"callgrind.{name}.out")
        steps = run["stepper"]["throughput_steps"]
        total = 0
        with open(profile) as data:
            for line in data:
                if line.startswith("totals:") or line.startswith("summary:"):
                    total = int(line.split()[1])
        for flag, suffix in (("--inclusive=yes", "inclusive"), ("--inclusive=no", "self")):
            with open(os.path.join(out, f"annotate.{name}.{suffix}.txt"), "w") as annotated:
                subprocess.run(["callgrind_annotate", flag, "--threshold=99", profile], stdout=annotated, check=True)
        summary += (
            f"{name} flowd, window {arguments.window}, {arguments.transport}: {total} instructions over {steps} "
            f"throughput steps = {total / max(steps, 1):.0f} per step\n"
        )
    with open(os.path.join(out, "summary.txt"), "w") as written:
        written.write(summary)
    sys.stdout.write(summary)


if __name__ == "__main__":
    main()
