#!/usr/bin/env python3
"""Groups a `perf report` of the flowd process into the stages of one step and draws them as a stacked bar (SVG).

    perf record -F 2000 -g -p <flowd pid> -o perf.data -- sleep 4      # during flowd-bench's throughput phase
    perf report -i perf.data --stdio --no-children --sort comm,dso,sym -g none --percent-limit 0 \
        | swift-demangle --simplified | python3 Benchmarks/profile/stages.py --cpu-us 28.5 --svg stages.svg

Each sample goes to the first stage whose rule matches its thread, library and symbol (RULES, in order); a stage's
share times the server CPU per step (`--cpu-us`, from the benchmark's report) is what it costs a step. The rules
are names, not a trace: a function shared by two stages counts for the first.
"""
import argparse
import re
import sys

RULES = [
    ("libzmq I/O threads", lambda comm, dso, kernel, sym: comm.startswith("ZMQbg")),
    ("fsync batching", lambda comm, dso, kernel, sym: re.search(r"fdatasync|fsync|jbd2|ext4_sync", sym)),
    ("journal append", lambda comm, dso, kernel, sym: re.search(r"Journal", sym)),
    ("thread hops and wake-ups", lambda comm, dso, kernel, sym: kernel and re.search(
        r"futex|schedule|switch_to|finish_task_switch|eventfd|poll|wake|ttwu|idle|enqueue|dequeue|update_curr|"
        r"pick_next|select_task|irq|ipi|x2apic|hrtimer", sym)),
    ("receive", lambda comm, dso, kernel, sym: re.search(r"zmq_msg_recv|zmq::socket_base_t::recv|tryReceive|"
                                                         r"ZMQSocket\.receive|zmq::.*::xrecv|recv", sym)),
    ("decode", lambda comm, dso, kernel, sym: re.search(r"decode|Decod|FastJSONReader|parse", sym)),
    ("encode", lambda comm, dso, kernel, sym: re.search(r"encode|Encod|FastJSONWriter", sym)),
    ("send", lambda comm, dso, kernel, sym: re.search(r"zmq_msg_send|zmq::socket_base_t::send|trySend|"
                                                      r"ZMQSocket\.send|zmq::.*::xsend|send", sym)),
    ("core (coordinator, UI model, session)", lambda comm, dso, kernel, sym: re.search(
        r"FlowCoordinator|PresentationModel|Navigator|Session|DaemonCore|StepResultWindows|FlowCore|Outbox|Flow\b",
        sym)),
    ("kernel, other syscalls", lambda comm, dso, kernel, sym: kernel),
    ("ARC, allocation, copies", lambda comm, dso, kernel, sym: re.search(
        r"swift_retain|swift_release|swift_alloc|swift_dealloc|malloc|free|memcpy|memmove|_int_|swift_bridge|"
        r"swift_arrayInit|swift_beginAccess|swift_endAccess|isUniquelyReferenced|cfree", sym)),
    ("other", lambda comm, dso, kernel, sym: True),
]

COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
          "#bab0ac", "#86bcb6", "#d4a6c8"]

LINE = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+(\S+)\s+\[(.)\]\s+(.*)$")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpu-us", type=float, help="the server's CPU per step, µs (adds a µs column)")
    parser.add_argument("--svg", help="write the stacked bar here")
    parser.add_argument("--title", default="Where flowd's CPU per step goes (perf, throughput phase)")
    arguments = parser.parse_args()
    shares = {name: 0.0 for name, _ in RULES}
    for line in sys.stdin:
        match = LINE.match(line)
        if not match:
            continue
        percent, comm, dso, flag, sym = match.groups()
        kernel = flag == "k"
        for name, rule in RULES:
            if rule(comm, dso, kernel, sym):
                shares[name] += float(percent)
                break
    total = sum(shares.values()) or 1.0
    rows = [(name, 100.0 * value / total) for name, value in shares.items() if value > 0]
    header = "| stage | share of flowd's samples |" + (" µs per step |" if arguments.cpu_us else "")
    print(header)
    print("|---|---|" + ("---|" if arguments.cpu_us else ""))
    for name, share in rows:
        cells = f"| {name} | {share:.1f} % |"
        if arguments.cpu_us:
            cells += f" {share / 100 * arguments.cpu_us:.1f} |"
        print(cells)
    if arguments.svg:
        write_svg(arguments.svg, rows, arguments.title, arguments.cpu_us)


def write_svg(path, rows, title, cpu_us):
    width, bar_top, bar_height, left = 900, 40, 36, 20
    usable = width - 2 * left
    parts = []
    x = float(left)
    for index, (name, share) in enumerate(rows):
        segment = usable * share / 100
        color = COLORS[index % len(COLORS)]
        parts.append(f'<rect x="{x:.1f}" y="{bar_top}" width="{segment:.1f}" height="{bar_height}" fill="{color}"/>')
        if segment > 34:
            parts.append(f'<text x="{x + segment / 2:.1f}" y="{bar_top + 23}" font-size="12" text-anchor="middle" '
                         f'fill="#fff">{share:.0f}%</text>')
        x += segment
    legend_top = bar_top + bar_height + 24
    for index, (name, share) in enumerate(rows):
        column, line = index % 2, index // 2
        lx, ly = left + column * usable / 2, legend_top + line * 20
        color = COLORS[index % len(COLORS)]
        label = f"{name}: {share:.1f} %" + (f" ({share / 100 * cpu_us:.1f} µs)" if cpu_us else "")
        parts.append(f'<rect x="{lx:.1f}" y="{ly - 11}" width="12" height="12" fill="{color}"/>')
        parts.append(f'<text x="{lx + 18:.1f}" y="{ly}" font-size="12">{escape(label)}</text>')
    height = legend_top + ((len(rows) + 1) // 2) * 20 + 10
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif">\n<rect width="100%" height="100%" fill="#fff"/>\n'
           f'<text x="{left}" y="24" font-size="15">{escape(title)}</text>\n' + "\n".join(parts) + "\n</svg>\n")
    with open(path, "w", encoding="utf-8") as output:
        output.write(svg)


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


if __name__ == "__main__":
    main()
