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
    /// flowd runs with a journal, one per fsync policy (beside the plain ones); `nil`: none.
    var journal: JournalSettings?
}

/// One configuration the benchmark measures: a system, the idle sessions beside the benchmark's, and for flowd the
/// journal's fsync policy (`nil`: no journal).
struct Variant: Hashable, Sendable {
    var system: BenchSystem
    var idleSessions: Int
    var journal: String?

    func matches(_ run: RunResult) -> Bool {
        run.system == system && run.idleSessions == idleSessions && run.journal?.policy == journal
    }

    var label: String {
        system == .raw ? "raw" : journal.map { "flowd+journal(\($0))" } ?? "flowd"
    }
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
    /// The server's resident memory at the end of the throughput phase (`VmRSS`).
    var serverResidentBytes: Int?
    /// What the journal wrote and how long recovering it took (journaled flowd runs only).
    var journal: JournalResult?
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
    /// The journal's fsync policy; `nil`: no journal.
    var journal: String?
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
    var serverResidentMegabytes: Cell
    var journalFigures: JournalSummary?
}

/// The journal's figures over the repetitions of one journaled configuration.
struct JournalSummary: Codable, Sendable {
    /// Snapshot and journal bytes at the end per step sent.
    var stateBytesPerStep: Summary.Cell
    /// Bytes of a record (JSON), on average.
    var recordBytes: Summary.Cell
    /// Bytes written to storage per step in the throughput phase (appends and compaction snapshots).
    var diskBytesPerThroughputStep: Summary.Cell
    /// `fdatasync`s per step sent.
    var syncsPerStep: Summary.Cell
    /// Compactions (snapshots written) during the run.
    var compactions: Summary.Cell
    var records: Summary.Cell
    var recoveryLoadSeconds: Summary.Cell
    var recoveryReplaySeconds: Summary.Cell
    var recoverySeconds: Summary.Cell
    var recoveryRecordsPerSecond: Summary.Cell
}

/// A journaled flowd against raw and against plain flowd (same transport, same run).
struct JournalRatio: Codable, Sendable {
    var transport: Transport
    var journal: String
    var latencyP50VersusRaw: Double
    var throughputVersusRaw: Double
    var latencyP50VersusFlowd: Double
    var throughputVersusFlowd: Double
    var latencyP50VersusFlowdPerRepetition: [Double]
    var throughputVersusFlowdPerRepetition: [Double]
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
    var journalRatios: [JournalRatio]?
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
        let variants = variants()
        for repetition in 1...settings.repeats {
            for transport in settings.transports {
                // Alternate the order so a drift of the machine does not always favour the same variant.
                let order = repetition % 2 == 1 ? variants : variants.reversed()
                for variant in order {
                    number += 1
                    let result = try runOnce(
                        variant: variant, transport: transport, repetition: repetition, folder: folder,
                        number: number, sizes: sizes
                    )
                    if !json {
                        var line =
                            "run \(number): \(transport) \(variant.label) idle=\(variant.idleSessions) "
                            + "rep=\(repetition): p50 \(micros(result.presenter.latency.p50)) µs, "
                            + "\(Int(result.presenter.throughputPerSecond)) cmds/s"
                        if let journal = result.journal {
                            line += String(
                                format: ", %.0f B/step, %d syncs, recovery %.3f s (%d records)",
                                journal.stateBytesPerStep, journal.syncs, journal.recovery.totalSeconds,
                                journal.recovery.records
                            )
                        }
                        note(line)
                    }
                    runs.append(result)
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

    /// Every configuration of a repetition, in the order of the first repetition: raw, flowd per number of idle
    /// sessions, then flowd with a journal per fsync policy (with the fewest idle sessions).
    private func variants() -> [Variant] {
        var variants: [Variant] = []
        for system in settings.systems {
            switch system {
            case .raw:
                variants.append(Variant(system: .raw, idleSessions: 0))
            case .flowd:
                for idle in settings.idleSessions { variants.append(Variant(system: .flowd, idleSessions: idle)) }
                for policy in settings.journal?.policies ?? [] {
                    variants.append(
                        Variant(system: .flowd, idleSessions: settings.idleSessions.min() ?? 0, journal: policy)
                    )
                }
            }
        }
        return variants
    }

    // MARK: One run

    private func runOnce(
        variant: Variant, transport: Transport, repetition: Int, folder: String, number: Int,
        sizes: (commandExtra: Int, okBytes: Int, stepBytes: Int, commandBytes: Int)
    ) throws -> RunResult {
        let system = variant.system
        let idleSessions = variant.idleSessions
        func endpoint(_ name: String) -> String {
            transport == .ipc ? "ipc://\(folder)/\(name)-\(number).sock" : "tcp://127.0.0.1:*"
        }
        // A journaled run's state directory, removed once its recovery is timed (after the children ended).
        var stateDirectory: String?
        defer {
            if let stateDirectory {
                if settings.journal?.keep == true {
                    note("run \(number): state kept in \(stateDirectory)")
                } else {
                    try? FileManager.default.removeItem(atPath: stateDirectory)
                }
            }
        }
        var children: [Child] = []
        defer {
            // Clients end by themselves; the server is ended by its pid.
            for child in children.reversed() { child.finish(grace: child.name == "stepper" || child.name == "presenter" ? 5 : 0) }
        }
        let server: Child
        switch system {
        case .flowd:
            var arguments = ["daemon", "--control", endpoint("control"), "--events", endpoint("events")]
            if let policy = variant.journal, let journal = settings.journal {
                let directory = try makeStateDirectory(parent: journal.parent)
                stateDirectory = directory
                arguments += [
                    "--state-dir", directory, "--fsync", policy, "--fsync-interval-ms", "\(journal.intervalMilliseconds)",
                    "--compact-bytes", "\(journal.compactBytes)",
                ]
            }
            server = try Child("flowd", arguments: arguments, prefix: settings.daemonPrefix)
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
        // A step may wait for an fdatasync (fsync=always): allow 20 ms each.
        let perStepTimeout = variant.journal == nil ? 0.002 : 0.02
        let phaseTimeout = 120 + Double(settings.warmup + settings.samples) * perStepTimeout
        _ = try stepper.expect("PHASE throughput-start", timeout: phaseTimeout)
        let processes = [server, stepper, presenter]
        let before = processes.map { cpuSeconds(pid: $0.pid) }
        let writtenBefore = procIO(pid: server.pid, field: "write_bytes")
        let started = monotonicNanoseconds()
        _ = try stepper.expect("PHASE throughput-end", timeout: settings.seconds * 2 + 60)
        let after = processes.map { cpuSeconds(pid: $0.pid) }
        let writtenAfter = procIO(pid: server.pid, field: "write_bytes")
        let resident = residentBytes(pid: server.pid)
        let wall = Double(monotonicNanoseconds() - started) / 1e9
        let timeout = 120 + Double(settings.warmup + settings.samples) * perStepTimeout + settings.seconds * 2
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
        var journalResult: JournalResult?
        if let policy = variant.journal, let stateDirectory {
            journalResult = try measureJournal(
                policy: policy, server: server, stateDirectory: stateDirectory, stepper: stepperResult,
                diskBytes: writtenAfter - writtenBefore
            )
        }
        return RunResult(
            system: system, transport: transport, idleSessions: idleSessions, repetition: repetition,
            presenter: presenterResult, stepper: stepperResult,
            cpu: CPUUsage(
                serverMicrosPerStep: perStep(0), stepperMicrosPerStep: perStep(1), presenterMicrosPerStep: perStep(2),
                serverCores: wall > 0 ? (after[0] - before[0]) / wall : 0
            ),
            serverResidentBytes: resident, journal: journalResult
        )
    }

    /// Stops the journaled daemon (SIGTERM: it closes its journal), reads its sync count, measures the state directory
    /// and times a recovery of it in a child of its own.
    private func measureJournal(
        policy: String, server: Child, stateDirectory: String, stepper: StepperResult, diskBytes: Int
    ) throws -> JournalResult {
        kill(server.pid, SIGTERM)
        let syncs = Int(try server.expect("JOURNAL ", timeout: 60)) ?? -1
        server.finish(grace: 30)
        var journalBytes = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory)) ?? []
        where name.hasPrefix("journal-") {
            journalBytes += fileSize(stateDirectory + "/" + name)
        }
        let recover = try Child("recover", arguments: ["recover", "--state-dir", stateDirectory])
        defer { recover.finish(grace: 10) }
        let recovery = try decodeJSON(RecoveryResult.self, try recover.expect("RESULT ", timeout: 600))
        return JournalResult(
            policy: policy, stepsSent: stepper.latencySteps + stepper.throughputSteps + 1,
            snapshotBytes: fileSize(stateDirectory + "/snapshot"), journalBytes: journalBytes,
            diskBytesPerThroughputStep: stepper.throughputSteps > 0
                ? Double(diskBytes) / Double(stepper.throughputSteps) : 0,
            syncs: syncs, recovery: recovery
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
                            journal: variant.journal, runs: group.count,
                            p50Micros: cell { $0.presenter.latency.p50 / 1000 },
                            p90Micros: cell { $0.presenter.latency.p90 / 1000 },
                            p99Micros: cell { $0.presenter.latency.p99 / 1000 },
                            p999Micros: cell { $0.presenter.latency.p999 / 1000 },
                            meanMicros: cell { $0.presenter.latency.mean / 1000 },
                            commandsPerSecond: cell { $0.presenter.throughputPerSecond },
                            loadedP50Micros: cell { $0.presenter.loadedLatency.p50 / 1000 },
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
            }) {
                let raw = summaries.first { $0.transport == transport && $0.system == .raw }
                for summary in summaries where summary.transport == transport && summary.journal != nil {
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
                })
            else { continue }
            var latencyPerRepetition: [Double] = []
            var throughputPerRepetition: [Double] = []
            for repetition in 1...settings.repeats {
                let pick = { (system: BenchSystem) in
                    runs.first {
                        $0.transport == transport && $0.system == system && $0.repetition == repetition
                            && (system == .raw || ($0.idleSessions == baseIdle && $0.journal == nil))
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
            journalRatios: settings.journal == nil ? nil : journalRatios
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
                "journal ".padding(toLength: 8, withPad: " ", startingAt: 0),
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
                    (summary.journal ?? "-").padding(toLength: 8, withPad: " ", startingAt: 0),
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
            printJournal(report, transport: transport)
        }
    }

    private func printJournal(_ report: BenchReport, transport: Transport) {
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
            print(
                String(
                    format: "ratio journal(%@)/raw: latency p50 %.2fx, throughput %.0f%%; /flowd: latency p50 %.2fx, "
                        + "throughput %.0f%% (per repetition %@)",
                    ratio.journal, ratio.latencyP50VersusRaw, ratio.throughputVersusRaw * 100, ratio.latencyP50VersusFlowd,
                    ratio.throughputVersusFlowd * 100, perRun.joined(separator: ", ")
                )
            )
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
        if let journal = settings.journal { info["state_fs"] = "\(journal.parent): \(journal.fileSystem)" }
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            info["loadavg_at_start"] = load.split(separator: " ").prefix(3).joined(separator: " ")
        }
        return info
    }
}

private func micros(_ nanoseconds: Double) -> String { String(format: "%.1f", nanoseconds / 1000) }
