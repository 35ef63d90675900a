#!/usr/bin/env python3
"""Splits a `perf record -g` of the flowd process into the stages of a step and draws them as a stacked bar (SVG).

    perf record -F 2000 -g -p <flowd pid> -o perf.data -- sleep 5     # during flowd-bench's throughput phase
    perf script -i perf.data | swift-demangle --simplified \
        | python3 Benchmarks/profile/stages.py --cpu-us 25.1 --svg stages.svg

Each sample goes to the stage of the frame nearest its leaf that names one (STAGES, tried in order on each frame):
a `memmove` or a `swift_retain` counts for the stage that called it, a kernel wake-up (`try_to_wake_up`,
`eventfd_write`, a context switch) for the thread hops even under a send. Samples of libzmq's own I/O thread are a
stage of their own. A stage's share times the server's CPU per step (`--cpu-us`, from the benchmark's report) is what
it costs a step. The rules are names, not a trace: read the shares as a map of where the time goes.
"""
import argparse
import bisect
import re
import subprocess
import sys

STAGES = [
    ("fsync batching", r"fdatasync|fsync|jbd2|ext4_sync"),
    ("journal sync hand-off (to the syncer's queue)", r"JournalSyncer|_dispatch|dispatch_"),
    ("journal append (record, CRC, write)", r"Journal|CRC32C"),
    ("thread hops and wake-ups", r"try_to_wake_up|ttwu|eventfd|futex|schedule|finish_task_switch|__switch_to|"
                                 r"ZMQPoller|ZMQReactor|ZMQMailbox|\bpoll\b|__poll|do_sys_poll|ep_poll|"
                                 r"_raw_spin_unlock_irq|irqentry_exit"),
    ("receive", r"ZMQSocket\.(try)?[rR]eceive|zmq_msg_recv|zmq_recv"),
    ("decode", r"FastJSONReader|WireCodec\.decode|\bdecode|Decodable|init\(from:"),
    ("encode", r"FastJSONWriter|WireCodec\.encode|\bencode|Encodable"),
    ("send", r"ZMQSocket\.(try)?[sS]end|zmq_msg_send|zmq_send"),
    ("core (coordinator, UI model, session, de-dup)", r"FlowCoordinator|PresentationModel|Navigator|Session|"
                                                      r"DaemonCore|StepResultWindows|Outbox|Flow"),
    ("metrics and logging", r"\b(Daemon|Journal)Metrics|Counter|Logger|Prometheus"),
    ("I/O loop (batching, timers)", r"DaemonServer"),
]
ZMQ_THREAD = "libzmq I/O thread (socket reads and writes)"
# libzmq and glibc have no frame pointers: a sample inside them whose stack ends there cannot be traced to a caller.
OTHER = "unattributed (inside libzmq or malloc, callers unknown)"
COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
          "#bab0ac", "#86bcb6", "#d4a6c8", "#8cd17d"]
HEADER = re.compile(r"^(\S.*?)\s+\d+(/\d+)?\s+[\d.]+:")
COMPILED = [(name, re.compile(pattern)) for name, pattern in STAGES]


def classify(comm, frames):
    if comm.startswith("ZMQbg"):
        return ZMQ_THREAD
    for frame in frames:
        for name, pattern in COMPILED:
            if pattern.search(frame):
                return name
    return OTHER


class Symbols:
    """The functions of a binary whose frames perf left as `[unknown]` (perf 6.1 reads no symbols from the large
    Swift executables here: "cannot get elf header"), from `nm`, demangled."""

    def __init__(self, path):
        self.path = path
        listing = subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True, text=True).stdout
        entries = [line.split(" ", 2) for line in listing.splitlines()]
        entries = [(int(address, 16), name) for address, kind, name in entries if kind in "tTwW"]
        names = subprocess.run(["swift-demangle", "--simplified"], input="\n".join(n for _, n in entries),
                               capture_output=True, text=True).stdout.splitlines()
        self.addresses = [address for address, _ in entries]
        self.names = names if len(names) == len(entries) else [name for _, name in entries]

    def resolve(self, frame):
        # "[unknown] (/path/to/binary)" after "<address> ", which the caller passes along
        address, _, rest = frame.partition(" ")
        if not rest.startswith("[unknown] (") or not rest.endswith(self.path + ")"):
            return rest or frame
        index = bisect.bisect_right(self.addresses, int(address, 16)) - 1
        return self.names[index] if index >= 0 else rest


def samples(lines, symbols=None):
    comm, frames = None, []
    for line in lines:
        if not line.strip():
            if comm is not None:
                yield comm, frames
            comm, frames = None, []
        elif line[0] not in " \t":
            match = HEADER.match(line)
            comm, frames = (match.group(1) if match else line.split()[0]), []
        else:
            # "<address> <symbol>+<offset> (<library>)"
            if symbols is not None:
                frames.append(symbols.resolve(line.strip()))
                continue
            parts = line.strip().split(" ", 1)
            frames.append(parts[1] if len(parts) > 1 else parts[0])
    if comm is not None:
        yield comm, frames


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpu-us", type=float, help="the server's CPU per step, µs (adds a µs column)")
    parser.add_argument("--svg", help="write the stacked bar here")
    parser.add_argument("--symbols", help="the daemon's executable: name its frames perf could not (with nm)")
    parser.add_argument("--title", default="Where flowd's CPU per step goes (perf, throughput phase, journal on)")
    arguments = parser.parse_args()
    order = [name for name, _ in STAGES] + [ZMQ_THREAD, OTHER]
    counts = {name: 0 for name in order}
    symbols = Symbols(arguments.symbols) if arguments.symbols else None
    for comm, frames in samples(sys.stdin, symbols):
        counts[classify(comm, frames)] += 1
    total = sum(counts.values())
    if total == 0:
        sys.exit("stages.py: no samples on standard input (perf script's output)")
    rows = [(name, 100.0 * counts[name] / total) for name in order if counts[name] > 0]
    print(f"{total} samples")
    print("| stage | share of flowd's samples |" + (" µs per step |" if arguments.cpu_us else ""))
    print("|---|---|" + ("---|" if arguments.cpu_us else ""))
    for name, share in rows:
        print(f"| {name} | {share:.1f} % |" + (f" {share / 100 * arguments.cpu_us:.1f} |" if arguments.cpu_us else ""))
    if arguments.svg:
        write_svg(arguments.svg, rows, arguments.title, arguments.cpu_us)


def write_svg(path, rows, title, cpu_us):
    width, bar_top, bar_height, left = 960, 40, 36, 20
    usable = width - 2 * left
    parts = []
    x = float(left)
    for index, (name, share) in enumerate(rows):
        segment = usable * share / 100
        parts.append(f'<rect x="{x:.1f}" y="{bar_top}" width="{segment:.1f}" height="{bar_height}" '
                     f'fill="{COLORS[index % len(COLORS)]}"/>')
        if segment > 34:
            parts.append(f'<text x="{x + segment / 2:.1f}" y="{bar_top + 23}" font-size="12" text-anchor="middle" '
                         f'fill="#fff">{share:.0f}%</text>')
        x += segment
    legend_top = bar_top + bar_height + 24
    for index, (name, share) in enumerate(rows):
        lx, ly = left + (index % 2) * usable / 2, legend_top + (index // 2) * 20
        label = f"{name}: {share:.1f} %" + (f" ({share / 100 * cpu_us:.1f} µs)" if cpu_us else "")
        parts.append(f'<rect x="{lx:.1f}" y="{ly - 11}" width="12" height="12" fill="{COLORS[index % len(COLORS)]}"/>')
        parts.append(f'<text x="{lx + 18:.1f}" y="{ly}" font-size="12">{escape(label)}</text>')
    height = legend_top + ((len(rows) + 1) // 2) * 20 + 10
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">\n'
           f'<rect width="100%" height="100%" fill="#fff"/>\n'
           f'<text x="{left}" y="24" font-size="15">{escape(title)}</text>\n' + "\n".join(parts) + "\n</svg>\n")
    with open(path, "w", encoding="utf-8") as output:
        output.write(svg)


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


if __name__ == "__main__":
    main()
