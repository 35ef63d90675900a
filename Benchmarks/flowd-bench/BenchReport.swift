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
    /// The stepper's and presenter's command prefix (`--client-prefix`), `{role}` replaced by their role.
    var clientPrefix: [String] = []
    /// flowd runs with a journal, one per fsync policy (beside the plain ones); `nil`: none.
    var journal: JournalSettings?
    /// How flowd's clients are written: by hand (only the server measured) and/or with FlowClient.
    var clients: [ClientMode] = [.wire]
    /// Screens the benchmark's session shows under its own (`--ui-screens`).
    var uiScreens = 0
    /// Seconds of the paced phase (half the throughput phase's rate); 0: none.
    var pacedSeconds = 0.0
    /// Where the presenter writes each paced step's arrival and latency (`<prefix>-<run>.txt`); `nil`: nowhere.
    var pacedTrace: String?
    /// Run as `<command> start|end <pid>` at each run's throughput phase's start and end, with the server's pid
    /// (`--phase-command`).
    var phaseCommand: String?
    /// Fault injection for the smoke check: the C relay does not forward this stepper message (1-based); 0: none.
    var loseStep = 0
}

/// How the benchmark's stepper and presenter talk to flowd.
enum ClientMode: String, Codable, Sendable, CaseIterable {
    /// Bytes written and scanned by hand (`Roles.swift`), so that only the server is measured.
    case wire
    /// The project's own `StepperClient` and `PresenterClient`, as a user's service and UI would use them.
    case library
}

/// One configuration the benchmark measures: a system, the idle sessions beside the benchmark's, and for flowd the
/// journal's fsync policy (`nil`: no journal).
struct Variant: Hashable, Sendable {
    var system: BenchSystem
    var idleSessions: Int
    var journal: String?
    var clients: ClientMode = .wire

    func matches(_ run: RunResult) -> Bool {
        run.system == system && run.idleSessions == idleSessions && run.journal?.policy == journal
            && (run.clients ?? .wire) == clients
    }

    var label: String {
        guard system == .flowd else { return system.rawValue }
        let name = journal.map { "flowd+journal(\($0))" } ?? "flowd"
        return clients == .library ? name + "+library" : name
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
    /// How the clients were written (`nil` in results older than the library mode: by hand).
    var clients: ClientMode?
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
    var clients: ClientMode?
    var runs: Int
    var p50Micros: Cell
    var p90Micros: Cell
    var p99Micros: Cell
    var p999Micros: Cell
    var meanMicros: Cell
    var commandsPerSecond: Cell
    var loadedP50Micros: Cell
    /// Latency in the paced phase (half the maximum rate), where it ran.
    var pacedP50Micros: Cell?
    var pacedP99Micros: Cell?
    /// Paced steps that left late (the window was full), per step sent paced.
    var pacedLateShare: Cell?
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
    /// flowd against each baseline (the C relay, the Swift relay, D-Bus).
    var comparisons: [Comparison]
    /// flowd's library clients against its hand-written ones.
    var clientModes: [ClientModeRatio]
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
