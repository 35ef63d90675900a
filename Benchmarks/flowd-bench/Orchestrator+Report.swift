import FlowCore
import FlowWire
import Foundation

// What the orchestrator makes of the runs: the report, its tables, the machine it ran on.
extension Orchestrator {
    func makeReport(runs: [RunResult], sizes: MessageSizes, machine: [String: String]) -> BenchReport {
        var summaries: [Summary] = []
        var ratios: [Ratio] = []
        var journalRatios: [JournalRatio] = []
        for transport in settings.transports {
            for variant in variants() {
                do {
                    let group = runs.filter { $0.transport == transport && variant.matches($0) }
                    guard !group.isEmpty else { continue }
                    func cell(_ value: (RunResult) -> Double) -> Summary.Cell { Summary.Cell(group.map(value)) }
                    let journaled = group.compactMap(\.journal)
                    func journalCell(_ value: (JournalResult) -> Double) -> Summary.Cell {
                        Summary.Cell(journaled.map(value))
                    }
                    summaries.append(
                        Summary(
                            system: variant.system, transport: transport, idleSessions: variant.idleSessions,
                            journal: variant.journal, clients: variant.clients, runs: group.count,
                            p50Micros: cell { $0.presenter.latency.p50 / 1000 },
                            p90Micros: cell { $0.presenter.latency.p90 / 1000 },
                            p99Micros: cell { $0.presenter.latency.p99 / 1000 },
                            p999Micros: cell { $0.presenter.latency.p999 / 1000 },
                            meanMicros: cell { $0.presenter.latency.mean / 1000 },
                            commandsPerSecond: cell { $0.presenter.throughputPerSecond },
                            loadedP50Micros: cell { $0.presenter.loadedLatency.p50 / 1000 },
                            pacedP50Micros: pacedCell(group) { $0.p50 / 1000 },
                            pacedP99Micros: pacedCell(group) { $0.p99 / 1000 },
                            pacedLateShare: group.contains { $0.stepper.pacedSteps != nil }
                                ? cell { ratio(Double($0.stepper.pacedLate ?? 0), Double($0.stepper.pacedSteps ?? 0)) }
                                : nil,
                            gaps: group.reduce(0) { $0 + $1.presenter.gaps },
                            serverCPUMicrosPerStep: cell { $0.cpu.serverMicrosPerStep },
                            serverResidentMegabytes: cell { Double($0.serverResidentBytes ?? 0) / 1_048_576 },
                            journalFigures: journaled.isEmpty
                                ? nil
                                : JournalSummary(
                                    stateBytesPerStep: journalCell(\.stateBytesPerStep),
                                    recordBytes: journalCell {
                                        $0.recovery.records > 0
                                            ? Double($0.recovery.recordBytes) / Double($0.recovery.records) : 0
                                    },
                                    diskBytesPerThroughputStep: journalCell(\.diskBytesPerThroughputStep),
                                    syncsPerStep: journalCell { Double($0.syncs) / Double(max(1, $0.stepsSent)) },
                                    compactions: journalCell { Double($0.recovery.generation - 1) },
                                    records: journalCell { Double($0.recovery.records) },
                                    recoveryLoadSeconds: journalCell(\.recovery.loadSeconds),
                                    recoveryReplaySeconds: journalCell(\.recovery.replaySeconds),
                                    recoverySeconds: journalCell(\.recovery.totalSeconds),
                                    recoveryRecordsPerSecond: journalCell(\.recovery.recordsPerSecond)
                                )
                        )
                    )
                }
            }
            let baseIdle = settings.idleSessions.min() ?? 0
            let plain = Variant(system: .flowd, idleSessions: baseIdle)
            if let flowd = summaries.first(where: {
                $0.transport == transport && $0.system == .flowd && $0.idleSessions == baseIdle && $0.journal == nil
                    && ($0.clients ?? .wire) == .wire
            }) {
                let raw = summaries.first { $0.transport == transport && $0.system == .raw }
                for summary in summaries
                where summary.transport == transport && summary.journal != nil && (summary.clients ?? .wire) == .wire
                    && summary.idleSessions == baseIdle
                {
                    let journaled = Variant(system: .flowd, idleSessions: baseIdle, journal: summary.journal)
                    var latencies: [Double] = []
                    var throughputs: [Double] = []
                    for repetition in 1...settings.repeats {
                        let pick = { (variant: Variant) in
                            runs.first { $0.transport == transport && $0.repetition == repetition && variant.matches($0) }
                        }
                        guard let plainRun = pick(plain), let journaledRun = pick(journaled) else { continue }
                        latencies.append(journaledRun.presenter.latency.p50 / plainRun.presenter.latency.p50)
                        throughputs.append(
                            journaledRun.presenter.throughputPerSecond / plainRun.presenter.throughputPerSecond
                        )
                    }
                    journalRatios.append(
                        JournalRatio(
                            transport: transport, journal: summary.journal!,
                            latencyP50VersusRaw: raw.map { summary.p50Micros.median / $0.p50Micros.median } ?? 0,
                            throughputVersusRaw: raw.map {
                                summary.commandsPerSecond.median / $0.commandsPerSecond.median
                            } ?? 0,
                            latencyP50VersusFlowd: summary.p50Micros.median / flowd.p50Micros.median,
                            throughputVersusFlowd: summary.commandsPerSecond.median / flowd.commandsPerSecond.median,
                            latencyP50VersusFlowdPerRepetition: latencies,
                            throughputVersusFlowdPerRepetition: throughputs
                        )
                    )
                }
            }
            guard
                let raw = summaries.first(where: { $0.transport == transport && $0.system == .raw }),
                let flowd = summaries.first(where: {
                    $0.transport == transport && $0.system == .flowd && $0.idleSessions == baseIdle && $0.journal == nil
                        && ($0.clients ?? .wire) == .wire
                })
            else { continue }
            var latencyPerRepetition: [Double] = []
            var throughputPerRepetition: [Double] = []
            for repetition in 1...settings.repeats {
                let pick = { (system: BenchSystem) in
                    runs.first {
                        $0.transport == transport && $0.system == system && $0.repetition == repetition
                            && (system == .raw
                                || ($0.idleSessions == baseIdle && $0.journal == nil && ($0.clients ?? .wire) == .wire))
                    }
                }
                guard let rawRun = pick(.raw), let flowdRun = pick(.flowd) else { continue }
                latencyPerRepetition.append(flowdRun.presenter.latency.p50 / rawRun.presenter.latency.p50)
                throughputPerRepetition.append(
                    flowdRun.presenter.throughputPerSecond / rawRun.presenter.throughputPerSecond
                )
            }
            let latency = flowd.p50Micros.median / raw.p50Micros.median
            let throughput = flowd.commandsPerSecond.median / raw.commandsPerSecond.median
            ratios.append(
                Ratio(
                    transport: transport, latencyP50: latency, throughput: throughput, latencyBarMet: latency <= 1.5,
                    throughputBarMet: throughput >= 0.25, latencyP50PerRepetition: latencyPerRepetition,
                    throughputPerRepetition: throughputPerRepetition
                )
            )
        }
        return BenchReport(
            machine: machine, settings: settings, messageSizes: sizes, runs: runs, summary: summaries, ratios: ratios,
            journalRatios: settings.journal == nil ? nil : journalRatios, comparisons: comparisons(summaries),
            clientModes: clientModeRatios(summaries, runs: runs)
        )
    }

    func printTable(_ report: BenchReport) {
        func format(_ cell: Summary.Cell, digits: Int = 1) -> String {
            let text = { (value: Double) in String(format: "%.\(digits)f", value) }
            return "\(text(cell.median)) (\(text(cell.min))-\(text(cell.max)))"
        }
        print("cells: median (min-max) over repetitions; latency one-way stepper send → presenter receive, µs;")
        print("loaded p50: latency while flat out (queueing); server CPU: all threads, throughput phase, per step")
        for transport in settings.transports {
            print("")
            print("== \(transport) ==")
            let header = [
                "system".padding(toLength: 26, withPad: " ", startingAt: 0),
                "sessions".padding(toLength: 8, withPad: " ", startingAt: 0),
                "p50", "p90", "p99", "p99.9", "mean", "k cmds/s", "loaded p50", "server CPU µs/step",
            ]
            print(header.joined(separator: " | "))
            for summary in report.summary where summary.transport == transport {
                var thousands = summary.commandsPerSecond
                thousands.median /= 1000
                thousands.min /= 1000
                thousands.max /= 1000
                let row = [
                    label(summary).padding(toLength: 26, withPad: " ", startingAt: 0),
                    (summary.system == .flowd ? "\(1 + summary.idleSessions)" : "-")
                        .padding(toLength: 8, withPad: " ", startingAt: 0),
                    format(summary.p50Micros), format(summary.p90Micros), format(summary.p99Micros),
                    format(summary.p999Micros), format(summary.meanMicros), format(thousands),
                    format(summary.loadedP50Micros, digits: 0), format(summary.serverCPUMicrosPerStep),
                ]
                print(row.joined(separator: " | ") + (summary.gaps > 0 ? "  (\(summary.gaps) out of order!)" : ""))
            }
            for ratio in report.ratios where ratio.transport == transport {
                print(
                    String(
                        format: "ratio flowd/raw: latency p50 %.2fx (bar ≤ 1.5x: %@), throughput %.0f%% (bar ≥ 25%%: %@)",
                        ratio.latencyP50, ratio.latencyBarMet ? "met" : "MISSED", ratio.throughput * 100,
                        ratio.throughputBarMet ? "met" : "MISSED"
                    )
                )
                let perRun = zip(ratio.latencyP50PerRepetition, ratio.throughputPerRepetition).map {
                    String(format: "%.2fx/%.0f%%", $0, $1 * 100)
                }
                print("  per repetition (latency/throughput): " + perRun.joined(separator: ", "))
            }
            printJournal(report, transport: transport)
            printComparison(report, transport: transport)
        }
    }

    func printJournal(_ report: BenchReport, transport: Transport) {
        let journaled = report.summary.filter { $0.transport == transport && $0.journalFigures != nil }
        guard !journaled.isEmpty else { return }
        func format(_ cell: Summary.Cell, digits: Int = 1) -> String {
            let text = { (value: Double) in String(format: "%.\(digits)f", value) }
            return "\(text(cell.median)) (\(text(cell.min))-\(text(cell.max)))"
        }
        print("journal (state in \(settings.journal?.parent ?? "?"), \(settings.journal?.fileSystem ?? "?")):")
        print(
            "fsync    | state B/step | B/record | disk B/step (flat out) | syncs/step | compactions | records | "
                + "recovery s (load + replay) | k records/s | server RSS MB"
        )
        for summary in journaled {
            let figures = summary.journalFigures!
            var rate = figures.recoveryRecordsPerSecond
            rate.median /= 1000
            rate.min /= 1000
            rate.max /= 1000
            let row = [
                (summary.journal ?? "-").padding(toLength: 8, withPad: " ", startingAt: 0),
                format(figures.stateBytesPerStep), format(figures.recordBytes), format(figures.diskBytesPerThroughputStep),
                format(figures.syncsPerStep, digits: 4), format(figures.compactions, digits: 0),
                format(figures.records, digits: 0),
                format(figures.recoverySeconds, digits: 3) + String(
                    format: " (%.3f + %.3f)", figures.recoveryLoadSeconds.median, figures.recoveryReplaySeconds.median
                ),
                format(rate), format(summary.serverResidentMegabytes, digits: 0),
            ]
            print(row.joined(separator: " | "))
        }
        for ratio in report.journalRatios ?? [] where ratio.transport == transport {
            let perRun = zip(ratio.latencyP50VersusFlowdPerRepetition, ratio.throughputVersusFlowdPerRepetition).map {
                String(format: "%.2fx/%.0f%%", $0, $1 * 100)
            }
            // Without the raw relay in the run (its ratios are 0 then), only the ratios to plain flowd.
            let versusRaw =
                ratio.latencyP50VersusRaw > 0
                ? String(
                    format: "/raw: latency p50 %.2fx, throughput %.0f%%; ", ratio.latencyP50VersusRaw,
                    ratio.throughputVersusRaw * 100)
                : ""
            print(
                String(
                    format: "ratio journal(%@)%@/flowd: latency p50 %.2fx, throughput %.0f%% (per repetition %@)",
                    ratio.journal, versusRaw, ratio.latencyP50VersusFlowd, ratio.throughputVersusFlowd * 100,
                    perRun.joined(separator: ", ")
                )
            )
        }
    }

    func machine() -> [String: String] {
        var info: [String: String] = [:]
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        }
        info["kernel"] = "\(field(name.sysname)) \(field(name.release)) \(field(name.machine))"
        info["cpus"] = "\(ProcessInfo.processInfo.activeProcessorCount)"
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            info["cpu"] = line[line.index(after: colon)...].filter { $0 != "\t" }.trimmingCharacters(in: .whitespaces)
        }
        if let journal = settings.journal { info["state_fs"] = "\(journal.parent): \(journal.fileSystem)" }
        // The commit of the checkout the benchmark was built from (`-dirty` with changes to the measured code).
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
        if let commit = runShell("git -C '\(checkout)' rev-parse --short HEAD") {
            let clean = runShell("git -C '\(checkout)/../..' diff --quiet HEAD -- Sources Benchmarks Package.swift") != nil
            info["commit"] = commit + (clean ? "" : "-dirty")
        }
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            info["loadavg_at_start"] = load.split(separator: " ").prefix(3).joined(separator: " ")
        }
        return info
    }
}

func micros(_ nanoseconds: Double) -> String { String(format: "%.1f", nanoseconds / 1000) }
