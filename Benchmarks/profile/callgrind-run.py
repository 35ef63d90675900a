#!/usr/bin/env python3
"""Counts the instructions flowd's daemon executes per step (all its threads, libzmq's and the kernel's excluded:
callgrind counts user-space instructions only) during flowd-bench's throughput phase, with callgrind
(docs/PERFORMANCE.md "Profiling"). Instruction counts do not depend on the machine's load.

    python3 Benchmarks/profile/callgrind-run.py --out /tmp/cg [--window 256] [--seconds 20] [--journal interval]
    python3 Benchmarks/profile/callgrind-run.py --role clients --out /tmp/cg-clients [--window 1] [--seconds 20]

`--role clients` profiles the stepper and the presenter instead (the daemon runs plain, journal off), of both client
modes (`--clients wire,library`: the hand-written ones and StepperClient/PresenterClient): one profile per client and
mode, `callgrind.<stepper|presenter>.<wire|library>.out`, and their instructions per step. `--window 1` (the default
for this role) makes the throughput phase lock-step: a step's whole path, emit to verdict and COMMAND to handler.

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


def annotate(out, name, profile):
    """`annotate.<name>.inclusive.txt` and `.self.txt` beside the profile (callgrind_annotate)."""
    with open(os.path.join(out, f"annotate.{name}.inclusive.txt"), "w") as annotated:
        subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=99", profile], stdout=annotated, check=True)
    exclusive = without_open_calls(profile)
    with open(os.path.join(out, f"annotate.{name}.self.txt"), "w") as annotated:
        subprocess.run(["callgrind_annotate", "--threshold=99", exclusive], stdout=annotated, check=True)


def total_instructions(profile):
    with open(profile) as data:
        for line in data:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    return 0


def summarize(out, name, profile, label, steps, note=""):
    """Annotates `profile` as `name` and returns its line of summary.txt: `label`, its instructions per step."""
    total = total_instructions(profile)
    annotate(out, name, profile)
    return f"{label}: {total} instructions over {steps} throughput steps = {total / max(steps, 1):.0f} per step{note}\n"


def write_summary(out, summary):
    with open(os.path.join(out, "summary.txt"), "w") as written:
        written.write(summary)
    sys.stdout.write(summary)


def profile_clients(arguments, out, shim, bench):
    """Runs the stepper and the presenter under callgrind (the daemon plain); their counts are zeroed at the
    throughput phase's start and dumped at its end, found by their output files' names (so that other callgrind
    runs on the machine, and the bench whose arguments name them, are left alone), and told apart by mode with the command line each dump records."""
    toggle = os.path.join(out, "toggle.sh")
    with open(toggle, "w") as script:
        script.write(
            '#!/bin/sh\nif [ "$1" = start ]; then action=-z; else action=-d; fi\n'
            f'pids=$(pgrep -f -- "--callgrind-out-file={out}/callgrind[.]client[.](stepper|presenter)[.]")\n'
            'exec callgrind_control "$action" $pids\n'
        )
    os.chmod(toggle, 0o755)
    prefix = (
        f"env LD_PRELOAD={shim} valgrind --tool=callgrind "
        f"--callgrind-out-file={out}/callgrind.client.{{role}}.%p"
    )
    window = arguments.window if arguments.window != 256 else 1
    command = [
        bench, "--systems", "flowd", "--clients", arguments.clients, "--transport", arguments.transport,
        "--samples", "50", "--warmup", "50", "--seconds", str(arguments.seconds), "--repeat", "1",
        "--window", str(window), "--ui-screens", str(arguments.ui_screens),
        "--client-prefix", prefix, "--phase-command", toggle, "--json-out", os.path.join(out, "bench.json"),
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    with open(os.path.join(out, "bench.json")) as results:
        runs = [run for run in json.load(results)["runs"] if run["system"] == "flowd"]
    steps = {run.get("clients", "wire"): run["stepper"]["throughput_steps"] for run in runs}
    summary = ""
    dumps = {}
    for name in os.listdir(out):
        # `callgrind.client.<role>.<pid>`, at the process's exit, and `.1`, at the phase's end: that one when there
        # is one (a hand-written presenter may exit before the dump reaches it; its counts then run to its exit).
        parts = name.split(".")
        if name.startswith("callgrind.client.") and len(parts) in (4, 5):
            key = (parts[2], parts[3])
            if len(parts) == 5 or key not in dumps:
                dumps[key] = name
    for (role, _), name in sorted(dumps.items()):
        profile = os.path.join(out, name)
        with open(profile) as data:
            command_line = next((line for line in data if line.startswith("cmd:")), "")
        mode = "library" if " --library" in command_line else "wire"
        kept = os.path.join(out, f"callgrind.{role}.{mode}.out")
        os.replace(profile, kept)
        summary += summarize(
            out, f"{role}.{mode}", kept, f"{role}, {mode} clients, window {window}, {arguments.transport}",
            steps.get(mode, 0), "" if name.endswith(".1") else " (to its exit)",
        )
    write_summary(out, summary)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build-bench/release/flowd-bench"))
    parser.add_argument("--journal", default="interval", help="fsync policy, or 'none' for plain flowd")
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--transport", default="ipc")
    parser.add_argument("--ui-screens", type=int, default=0)
    parser.add_argument("--role", choices=["daemon", "clients"], default="daemon", help="the processes profiled")
    parser.add_argument("--clients", default="wire,library", help="client modes (--role clients)")
    arguments = parser.parse_args()
    out = os.path.abspath(arguments.out)
    os.makedirs(out, exist_ok=True)

    shim, bench = valgrind_copy.prepare(arguments.bench, out)
    if arguments.role == "clients":
        return profile_clients(arguments, out, shim, bench)
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
        summary += summarize(
            out, name, profile, f"{name} flowd, window {arguments.window}, {arguments.transport}",
            run["stepper"]["throughput_steps"],
        )
    write_summary(out, summary)


if __name__ == "__main__":
    main()
