#!/usr/bin/env python3
"""Context switches and CPU per lock-step step of a system's server and its two clients, by thread name.

Runs flowd-bench twice with the same settings but the number of lock-step samples, and reads every thread's
/proc/<pid>/task/<tid>/status (voluntary and involuntary context switches) and stat (user and system ticks) of the
server (flowd or a relay; for D-Bus the relay and the broker), the stepper and the presenter when the throughput
phase starts (`--phase-command`, so after the lock-step phase).
The difference between the two runs, divided by the difference in steps, is what one lock-step step costs: start-up
and the handshake cancel out, and a count does not depend on the machine's load (a wake-up is a wake-up).

    python3 Benchmarks/profile/lockstep-switches.py --bench .build-bench/release/flowd-bench --clients library
    python3 Benchmarks/profile/lockstep-switches.py --bench BIN --clients wire --samples 2000,12000
    python3 Benchmarks/profile/lockstep-switches.py --bench BIN --clients wire --system c-zmq   (or raw, dbus)
    python3 Benchmarks/profile/lockstep-switches.py --bench BIN --clients library --instructions --samples 300,1300

With `--instructions` the two clients run under callgrind instead (`--client-prefix`; the copy of flowd-bench without
debug sections and the `sigsuspend` shim of callgrind-run.py), with a throughput phase of a few steps, and the
difference of their whole runs' instruction counts (every thread, libzmq's too) per step is printed.
Further arguments go to flowd-bench (`--transport tcp`, `--journal interval`, ...).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import valgrind_copy


# As flowd-bench's --phase-command: `sh snap.sh FILE start|end <pid>`. It copies the /proc files of the server and
# its siblings (the bench's other children) with few forks: the clients go on with the throughput phase while it
# runs, and a slow snapshot (a Python start-up on a loaded machine) counted that phase or missed the clients' exit.
SNAP_SH = r"""[ "$2" = start ] || exit 0
out=$1; pid=$3
read -r s < /proc/$pid/stat; s=${s##*) }; set -- $s; parent=$2
{
for d in /proc/[0-9]*; do
  { read -r s < $d/stat; } 2>/dev/null || continue
  s=${s##*) }; set -- $s
  [ "$2" = "$parent" ] || continue
  echo "@process ${d#/proc/} $(tr '\0' ' ' < $d/cmdline)"
  files=""
  for t in $d/task/*; do files="$files $t/status $t/stat"; done
  cat $files 2>/dev/null
done
echo "@server $pid"
} > "$out"
"""


def parse_snapshot(path):
    """A snapshot of SNAP_SH: {role: {thread name: [voluntary, involuntary, ticks, threads]}}."""
    text = open(path).read()
    server = int(text.rsplit("@server ", 1)[1].split()[0])
    result = {}
    for block in text.split("@process ")[1:]:
        header, _, rest = block.partition("\n")
        pid, _, command = header.partition(" ")
        argv = command.split()
        if int(pid) == server:
            role = "server"
        elif argv and os.path.basename(argv[0]) == "dbus-daemon":
            role = "broker"
        else:
            role = next((a for a in argv if a in ("stepper", "presenter")), None)
        if role is None:
            continue
        threads = result.setdefault(role, {})
        values = {}
        for line in rest.split("@server")[0].splitlines():
            if ":" in line and not line[0].isdigit():
                key, _, value = line.partition(":")
                values[key] = value.strip()
            elif line and line[0].isdigit() and "Name" in values:
                fields = line.rsplit(")", 1)[1].split()
                counts = [int(values["voluntary_ctxt_switches"]), int(values["nonvoluntary_ctxt_switches"]),
                          int(fields[11]) + int(fields[12])]
                total = threads.setdefault(values["Name"], [0, 0, 0, 0])
                for i, value in enumerate(counts):
                    total[i] += value
                total[3] += 1
                values = {}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--clients", default="library", choices=["wire", "library"])
    parser.add_argument("--system", default="flowd", choices=["flowd", "raw", "c-zmq", "dbus"],
                        help="the server (the relays have the hand-written clients only: --clients wire)")
    parser.add_argument("--samples", default="2000,12000", help="the two runs' lock-step samples")
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--transport", default="ipc")
    parser.add_argument("--instructions", action="store_true", help="count the clients' instructions (callgrind)")
    args, rest = parser.parse_known_args()
    low, high = (int(x) for x in args.samples.split(","))
    if args.instructions:
        return count_instructions(args, rest, low, high)
    hz = os.sysconf("SC_CLK_TCK")
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        snap = os.path.join(folder, "snap.sh")
        with open(snap, "w") as script:
            script.write(SNAP_SH)
        for samples in (low, high):
            path = os.path.join(folder, f"{samples}.txt")
            command = [
                args.bench, "--systems", args.system, "--clients", args.clients, "--transport", args.transport,
                "--samples", str(samples), "--warmup", str(args.warmup), "--seconds", "0.2", "--repeat", "1",
                "--phase-command", f"sh {snap} {path}",
            ] + rest
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            runs.append(parse_snapshot(path))
    steps = high - low
    print(f"per lock-step step ({args.system}, {args.clients} clients, {args.transport}; {low} and {high} samples):")
    print(f"{'process':<10} {'thread':<16} {'n':>3} {'voluntary':>10} {'involuntary':>12} {'cpu us':>8}")
    every = [0.0, 0.0, 0.0]
    for role in ("stepper", "server", "broker", "presenter"):
        if role not in runs[0] and role not in runs[1]:
            continue
        names = sorted(set(runs[0].get(role, {})) | set(runs[1].get(role, {})))
        totals = [0.0, 0.0, 0.0]
        for name in names:
            a = runs[0][role].get(name, [0, 0, 0, 0])
            b = runs[1][role].get(name, [0, 0, 0, 0])
            per = [(b[i] - a[i]) / steps for i in range(3)]
            per[2] = per[2] * 1e6 / hz
            totals = [t + p for t, p in zip(totals, per)]
            print(f"{role:<10} {name:<16} {b[3]:>3} {per[0]:>10.2f} {per[1]:>12.2f} {per[2]:>8.1f}")
        print(f"{role:<10} {'(all)':<16} {'':>3} {totals[0]:>10.2f} {totals[1]:>12.2f} {totals[2]:>8.1f}")
        every = [e + t for e, t in zip(every, totals)]
    print(f"{'(every)':<10} {'':<16} {'':>3} {every[0]:>10.2f} {every[1]:>12.2f} {every[2]:>8.1f}")


def count_instructions(args, rest, low, high):
    totals = {}
    with tempfile.TemporaryDirectory() as folder:
        shim, bench = valgrind_copy.prepare(args.bench, folder)
        for samples in (low, high):
            out = os.path.join(folder, f"{samples}-{{role}}.out")
            prefix = f"env LD_PRELOAD={shim} valgrind --tool=callgrind --callgrind-out-file={out}"
            command = [
                bench, "--systems", "flowd", "--clients", args.clients, "--transport", args.transport,
                "--samples", str(samples), "--warmup", str(args.warmup), "--seconds", "0.0001", "--repeat", "1",
                "--client-prefix", prefix,
            ] + rest
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for role in ("stepper", "presenter"):
                with open(out.replace("{role}", role)) as profile:
                    line = next(line for line in profile if line.startswith("totals:"))
                totals[(role, samples)] = int(line.split()[1])
    print(f"instructions per lock-step step ({args.clients} clients, {args.transport}; {low} and {high} samples):")
    for role in ("stepper", "presenter"):
        print(f"{role:<10} {(totals[(role, high)] - totals[(role, low)]) / (high - low):>10.0f}")


if __name__ == "__main__":
    main()
