#!/usr/bin/env python3
"""Counts the instructions flowd's daemon executes per step (all its threads, libzmq's and the kernel's excluded:
callgrind counts user-space instructions only) during flowd-bench's throughput phase, with callgrind
(docs/PERFORMANCE.md "Profiling"). Instruction counts do not depend on the machine's load.

    python3 Benchmarks/profile/callgrind-run.py --out /tmp/cg [--window 256] [--seconds 20] [--journal interval]

The daemon runs under `valgrind --tool=callgrind`; flowd-bench's `--phase-command` zeroes its counts when the
throughput phase starts and dumps them when it ends (`callgrind_control -z`, `-d`, each about 0.3 s late, which
about cancels out). Instructions per step are the dump's total over the stepper's throughput steps; two runs of the
same binary differ by 1-2 % (the batches form differently). `--window` sets the steps in flight (16 or 256; the
bench's throughput phase needs more than one). Under callgrind the daemon is 50-100× slower, so it is what limits
the rate, and its batches are full.

Valgrind 3.19 (Debian 12) cannot read the DWARF 5 of Swift 6's executables and crashes in libdispatch's
`sigsuspend`: the script runs a copy of flowd-bench without its debug sections (symbols kept) and preloads
`sigsuspend-copy.c`. flowd-bench runs plain flowd, then the journaled one (`--journal none`: plain only); each gets
its profile. Writes into --out: `callgrind.<plain|journal>.out`, `annotate.<…>.inclusive.txt` and `.self.txt`
(callgrind_annotate), `bench.json`, `summary.txt` (instructions per step).
"""
import argparse
import json
import os
import subprocess
import sys

import valgrind_copy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def without_open_calls(profile):
    """A copy of a dump without the calls that were under way when the counts were zeroed (`calls=0`): their whole
    cost, the phase's, shows as the caller's own in callgrind_annotate 3.19's exclusive table (`clone` at 100 %)."""
    with open(profile) as data:
        lines = data.read().split("\n")
    kept = []
    skip = False
    for line in lines:
        if skip:
            skip = False
            continue
        if line.startswith("calls=0 "):
            skip = True  # and the call's cost line (its cfn= stays: it may name a function the first time)
            continue
        kept.append(line)
    path = profile + ".exclusive"
    with open(path, "w") as written:
        written.write("\n".join(kept))
    return path


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

    shim, bench = valgrind_copy.prepare(arguments.bench, out)
    toggle = os.path.join(out, "toggle.sh")
    pids = os.path.join(out, "pids.txt")
    with open(toggle, "w") as script:
        script.write(
            '#!/bin/sh\nif [ "$1" = start ]; then echo "$2" >> ' + pids + '; action=-z; else action=-d; fi\n'
            'exec callgrind_control "$action" "$2"\n'
        )
    os.chmod(toggle, 0o755)
    if os.path.exists(pids):
        os.remove(pids)

    # Plain flowd runs, then the journaled one (flowd-bench's order): one profile each, by pid.
    prefix = (
        f"env LD_PRELOAD={shim} valgrind --tool=callgrind "
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
        # The dump at the phase's end (`.1`); the one at exit (the whole run) is left as it is.
        profile = os.path.join(out, f"callgrind.out.{pid}.1")
        os.replace(profile, os.path.join(out, f"callgrind.{name}.out"))
        profile = os.path.join(out, f"callgrind.{name}.out")
        steps = run["stepper"]["throughput_steps"]
        total = 0
        with open(profile) as data:
            for line in data:
                if line.startswith("totals:") or line.startswith("summary:"):
                    total = int(line.split()[1])
        with open(os.path.join(out, f"annotate.{name}.inclusive.txt"), "w") as annotated:
            subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=99", profile], stdout=annotated, check=True)
        exclusive = without_open_calls(profile)
        with open(os.path.join(out, f"annotate.{name}.self.txt"), "w") as annotated:
            subprocess.run(["callgrind_annotate", "--threshold=99", exclusive], stdout=annotated, check=True)
        summary += (
            f"{name} flowd, window {arguments.window}, {arguments.transport}: {total} instructions over {steps} "
            f"throughput steps = {total / max(steps, 1):.0f} per step\n"
        )
    with open(os.path.join(out, "summary.txt"), "w") as written:
        written.write(summary)
    sys.stdout.write(summary)


if __name__ == "__main__":
    main()
