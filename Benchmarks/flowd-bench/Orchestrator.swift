import FlowCore
import FlowWire
import Foundation

/// What one `flowd-bench` run measures.
struct Settings: Codable, Sendable {
    var transports: [Transport]
    var systems: [BenchSystem]
    var samples: Int
    var warmup: Int
    var seconds: Double
    var repeats: Int
    var window: Int
    var idleSessions: [Int]
    var daemonPrefix: [String]
}

/// The sizes of the bodies of one step's messages in flowd (frame 2; frames 0 and 1 are `FLOWD1` and the type).
struct MessageSizes: Codable, Sendable {
    var step: Int
    var command: Int
    var ok: Int
    var ack: Int
}

/// One measured run: one system, one transport, one number of idle sessions, one repetition.
struct RunResult: Codable, Sendable {
    var system: BenchSystem
    var transport: Transport
    var idleSessions: Int
    var repetition: Int
    var presenter: PresenterResult
    var stepper: StepperResult
    /// CPU each process used during the throughput phase, per step sent in it.
    var cpu: CPUUsage
}

/// CPU time per step during the throughput phase (user + system, all threads, from `/proc/<pid>/stat`).
struct CPUUsage: Codable, Sendable {
    var serverMicrosPerStep: Double
    var stepperMicrosPerStep: Double
    var presenterMicrosPerStep: Double
    /// How many cores the server kept busy.
    var serverCores: Double
}

/// The CPU time a process has used so far, in seconds.
func cpuSeconds(pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the command: state (0), …, utime (11), stime (12), in clock ticks.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The medians (and ranges) over the repetitions of one configuration.
struct Summary: Codable, Sendable {
    struct Cell: Codable, Sendable {
        var median: Double
        var min: Double
        var max: Double

        init(_ values: [Double]) {
            let sorted = values.sorted()
            let count = sorted.count
            median = count == 0 ? 0 : count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
            min = sorted.first ?? 0
            max = sorted.last ?? 0
        }
    }

    var system: BenchSystem
    var transport: Transport
    var idleSessions: Int
    var runs: Int
    var p50Micros: Cell
    var p90Micros: Cell
    var p99Micros: Cell
    var p999Micros: Cell
    var meanMicros: Cell
    var commandsPerSecond: Cell
    var loadedP50Micros: Cell
    var gaps: Int
    var serverCPUMicrosPerStep: Cell
}

/// Flowd against raw, per transport: the bars of the benchmark.
struct Ratio: Codable, Sendable {
    var transport: Transport
    /// flowd p50 / raw p50 (medians over the repetitions); the bar is at most 1.5.
    var latencyP50: Double
    /// flowd commands/s / raw commands/s (medians); the bar is at least 0.25.
    var throughput: Double
    var latencyBarMet: Bool
    var throughputBarMet: Bool
    /// The same ratios within each repetition (flowd and raw measured back to back).
    var latencyP50PerRepetition: [Double]
    var throughputPerRepetition: [Double]
}

struct BenchReport: Codable, Sendable {
    var machine: [String: String]
    var settings: Settings
    var messageSizes: MessageSizes
    var runs: [RunResult]
    var summary: [Summary]
    var ratios: [Ratio]
}

func encodeJSON(_ value: some Encodable, pretty: Bool = false) throws -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(T.self, from: Data(text.utf8))
}

/// A child process: this executable in another mode, its standard output read line by line.
final class Child {
    let name: String
    let process = Process()
    private let output = Pipe()
    private var reader: LineReader

    init(_ name: String, arguments: [String], prefix: [String] = []) throws {
        self.name = name
        let executable = try Child.executablePath()
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = prefix + [executable] + arguments
        }
        process.standardOutput = output
        reader = LineReader(fd: output.fileHandleForReading.fileDescriptor)
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Reads lines until one starts with `prefix`; returns the rest of it. Other lines go to standard error.
    func expect(_ prefix: String, timeout: Double) throws -> String {
        let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        while true {
            let left = Double(deadline &- monotonicNanoseconds()) / 1e9
            guard left > 0, left < timeout + 1 else { throw BenchError("\(name): timed out waiting for \(prefix)") }
            let line = try reader.next(timeout: left, what: "\(name) \(prefix)")
            if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
            note("[\(name)] \(line)")
        }
    }

    /// Waits `grace` seconds for the child to exit by itself, then ends it by its pid (SIGTERM, then SIGKILL) and
    /// waits for it.
    func finish(grace: Double) {
        let deadline = monotonicNanoseconds() + UInt64(grace * 1e9)
        while process.isRunning, monotonicNanoseconds() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(pid, SIGTERM)
            let killDeadline = monotonicNanoseconds() + 10_000_000_000
            while process.isRunning, monotonicNanoseconds() < killDeadline { usleep(10_000) }
            if process.isRunning { kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
    }

    private static func executablePath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}

/// Starts the processes of each run, collects their results and prints the report.
struct Orchestrator {
    let settings: Settings

    func run(json: Bool, jsonOut: String? = nil) throws {
        let machine = machine()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sizes = BenchWire.messageSizes(stamp: monotonicNanoseconds())
        let messageSizes = MessageSizes(
            step: sizes.stepBytes, command: sizes.commandBytes, ok: sizes.okBytes,
            ack: BenchWire.ackBody(seq: 100_000).count
        )
        if !json {
            print("flowd-bench: stepper → server → presenter, Flowd against a raw ZeroMQ relay")
            print("machine: \(machine.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))")
            print(
                "bodies: STEP \(messageSizes.step) B, COMMAND \(messageSizes.command) B, OK \(messageSizes.ok) B, "
                    + "ACK \(messageSizes.ack) B (+ frames FLOWD1 and the type)"
            )
            print(
                "settings: \(settings.warmup) warm-up + \(settings.samples) lock-step samples, "
                    + "\(settings.seconds) s flat out (window \(settings.window)), \(settings.repeats) repetitions"
            )
            fflush(nil)
        }
        var runs: [RunResult] = []
        var number = 0
        for repetition in 1...settings.repeats {
            for transport in settings.transports {
                // Alternate the order so a drift of the machine does not always favour the same system.
                let order = repetition % 2 == 1 ? settings.systems : settings.systems.reversed()
                for system in order {
                    for idle in system == .flowd ? settings.idleSessions : [0] {
                        number += 1
                        let result = try runOnce(
                            system: system, transport: transport, idleSessions: idle, repetition: repetition,
                            folder: folder, number: number, sizes: sizes
                        )
                        if !json {
                            note(
                                "run \(number): \(transport) \(system) idle=\(idle) rep=\(repetition): p50 "
                                    + "\(micros(result.presenter.latency.p50)) µs, "
                                    + "\(Int(result.presenter.throughputPerSecond)) cmds/s"
                            )
                        }
                        runs.append(result)
                    }
                }
            }
        }
        let report = makeReport(runs: runs, sizes: messageSizes, machine: machine)
        if let jsonOut {
            try Data(try encodeJSON(report, pretty: true).utf8).write(to: URL(fileURLWithPath: jsonOut))
        }
        if json {
            print(try encodeJSON(report, pretty: true))
        } else {
            printTable(report)
        }
    }

    // MARK: One run

    private func runOnce(
        system: BenchSystem, transport: Transport, idleSessions: Int, repetition: Int, folder: String, number: Int,
        sizes: (commandExtra: Int, okBytes: Int, stepBytes: Int, commandBytes: Int)
    ) throws -> RunResult {
        func endpoint(_ name: String) -> String {
            transport == .ipc ? "ipc://\(folder)/\(name)-\(number).sock" : "tcp://127.0.0.1:*"
        }
        var children: [Child] = []
        defer {
            // Clients end by themselves; the server is ended by its pid.
            for child in children.reversed() { child.finish(grace: child.name == "stepper" || child.name == "presenter" ? 5 : 0) }
        }
        let server: Child
        switch system {
        case .flowd:
            server = try Child(
                "flowd", arguments: ["daemon", "--control", endpoint("control"), "--events", endpoint("events")],
                prefix: settings.daemonPrefix
            )
        case .raw:
            server = try Child(
                "relay",
                arguments: [
                    "relay", "--control", endpoint("control"), "--command-extra", "\(sizes.commandExtra)",
                    "--ok-bytes", "\(sizes.okBytes)",
                ]
            )
        }
        children.append(server)
        let control = try server.expect("READY ", timeout: 60)
        if idleSessions > 0 { try createSessions(idleSessions, at: control) }

        let common = [
            "--system", system.rawValue, "--control", control, "--warmup", "\(settings.warmup)",
            "--samples", "\(settings.samples)", "--seconds", "\(settings.seconds)", "--window", "\(settings.window)",
        ]
        let presenter = try Child("presenter", arguments: ["presenter", "--side", endpoint("side")] + common)
        children.append(presenter)
        let side = try presenter.expect("READY ", timeout: 60)
        let stepper = try Child("stepper", arguments: ["stepper", "--side", side] + common)
        children.append(stepper)
        _ = try stepper.expect("READY", timeout: 60)
        let phaseTimeout = 120 + Double(settings.warmup + settings.samples) * 0.002
        _ = try stepper.expect("PHASE throughput-start", timeout: phaseTimeout)
        let processes = [server, stepper, presenter]
        let before = processes.map { cpuSeconds(pid: $0.pid) }
        let started = monotonicNanoseconds()
        _ = try stepper.expect("PHASE throughput-end", timeout: settings.seconds * 2 + 60)
        let after = processes.map { cpuSeconds(pid: $0.pid) }
        let wall = Double(monotonicNanoseconds() - started) / 1e9
        let timeout = 120 + Double(settings.warmup + settings.samples) * 0.002 + settings.seconds * 2
        let stepperResult = try decodeJSON(StepperResult.self, try stepper.expect("RESULT ", timeout: timeout))
        let presenterResult = try decodeJSON(PresenterResult.self, try presenter.expect("RESULT ", timeout: 60))
        func perStep(_ index: Int) -> Double {
            stepperResult.throughputSteps > 0 ? (after[index] - before[index]) * 1e6 / Double(stepperResult.throughputSteps) : 0
        }
        if presenterResult.throughputCommands != stepperResult.throughputSteps {
            note(
                "warning: run \(number): the stepper sent \(stepperResult.throughputSteps) steps, the presenter got "
                    + "\(presenterResult.throughputCommands) commands"
            )
        }
        return RunResult(
            system: system, transport: transport, idleSessions: idleSessions, repetition: repetition,
            presenter: presenterResult, stepper: stepperResult,
            cpu: CPUUsage(
                serverMicrosPerStep: perStep(0), stepperMicrosPerStep: perStep(1), presenterMicrosPerStep: perStep(2),
                serverCores: wall > 0 ? (after[0] - before[0]) / wall : 0
            )
        )
    }

    /// Creates idle sessions as an operator would (`CREATE_SESSION`); each gets the benchmark flow and its attachment.
    private func createSessions(_ count: Int, at control: String) throws {
        let client = try BenchClient(system: .flowd, endpoint: control)
        defer { client.close() }
        try client.hello(role: .operator, name: "bench-operator")
        for index in 1...count {
            let req = client.makeReq()
            try client.send(.createSession(SessionRequest(req: req, session: "idle-\(index)")))
            _ = try client.awaitDecoded(what: "OK to CREATE_SESSION") { message in
                if case .ok(let body) = message, body.req == req { return true }
                return nil
            }
        }
    }

    private func makeTemporaryFolder() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/flowd-bench-XXXXXX").utf8CString)
        guard let pointer = mkdtemp(&template) else { throw BenchError("mkdtemp failed") }
        return String(cString: pointer)
    }

    // MARK: Report

    private func makeReport(runs: [RunResult], sizes: MessageSizes, machine: [String: String]) -> BenchReport {
        var summaries: [Summary] = []
        var ratios: [Ratio] = []
        for transport in settings.transports {
            for system in settings.systems {
                for idle in system == .flowd ? settings.idleSessions : [0] {
                    let group = runs.filter { $0.transport == transport && $0.system == system && $0.idleSessions == idle }
                    guard !group.isEmpty else { continue }
                    func cell(_ value: (RunResult) -> Double) -> Summary.Cell { Summary.Cell(group.map(value)) }
                    summaries.append(
                        Summary(
                            system: system, transport: transport, idleSessions: idle, runs: group.count,
                            p50Micros: cell { $0.presenter.latency.p50 / 1000 },
                            p90Micros: cell { $0.presenter.latency.p90 / 1000 },
                            p99Micros: cell { $0.presenter.latency.p99 / 1000 },
                            p999Micros: cell { $0.presenter.latency.p999 / 1000 },
                            meanMicros: cell { $0.presenter.latency.mean / 1000 },
                            commandsPerSecond: cell { $0.presenter.throughputPerSecond },
                            loadedP50Micros: cell { $0.presenter.loadedLatency.p50 / 1000 },
                            gaps: group.reduce(0) { $0 + $1.presenter.gaps },
                            serverCPUMicrosPerStep: cell { $0.cpu.serverMicrosPerStep }
                        )
                    )
                }
            }
            let baseIdle = settings.idleSessions.min() ?? 0
            guard
                let raw = summaries.first(where: { $0.transport == transport && $0.system == .raw }),
                let flowd = summaries.first(where: {
                    $0.transport == transport && $0.system == .flowd && $0.idleSessions == baseIdle
                })
            else { continue }
            var latencyPerRepetition: [Double] = []
            var throughputPerRepetition: [Double] = []
            for repetition in 1...settings.repeats {
                let pick = { (system: BenchSystem) in
                    runs.first {
                        $0.transport == transport && $0.system == system && $0.repetition == repetition
                            && (system == .raw || $0.idleSessions == baseIdle)
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
            machine: machine, settings: settings, messageSizes: sizes, runs: runs, summary: summaries, ratios: ratios
        )
    }

    private func printTable(_ report: BenchReport) {
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
                "system".padding(toLength: 6, withPad: " ", startingAt: 0),
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
                    summary.system.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0),
                    (summary.system == .flowd ? "\(1 + summary.idleSessions)" : "-")
                        .padding(toLength: 8, withPad: " ", startingAt: 0),
                    format(summary.p50Micros), format(summary.p90Micros), format(summary.p99Micros),
                    format(summary.p999Micros), format(summary.meanMicros), format(thousands),
                    format(summary.loadedP50Micros, digits: 0), format(summary.serverCPUMicrosPerStep),
                ]
                print(row.joined(separator: " | ") + (summary.gaps > 0 ? "  (\(summary.gaps) seq gaps!)" : ""))
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
        }
    }

    private func machine() -> [String: String] {
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
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            info["loadavg_at_start"] = load.split(separator: " ").prefix(3).joined(separator: " ")
        }
        return info
    }
}

private func micros(_ nanoseconds: Double) -> String { String(format: "%.1f", nanoseconds / 1000) }
