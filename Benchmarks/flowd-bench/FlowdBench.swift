// flowd-bench: measures Flowd (stepper → flowd → presenter) against relays of the same shape (a Swift relay on the
// project's ZeroMQ wrapper, a C relay on libzmq, a D-Bus relay), in one run, and prints them and their ratios. See
// docs/PERFORMANCE.md.
//
// `flowd-bench` (the `run` subcommand) is the orchestrator; it starts this same executable in the other modes as
// child processes: `daemon`, `relay`, `c-relay`, `stepper`, `presenter`, `recover`; `idle` measures idle sessions
// in its own process.

import ArgumentParser
import FlowDaemon

@main
struct FlowdBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd-bench",
        abstract: "Flowd's step → command latency and throughput, against relays measured in the same run.",
        subcommands: [
            Run.self, DaemonCommand.self, RelayCommand.self, CRelayCommand.self, StepperCommand.self, PresenterCommand.self,
            RecoverCommand.self, IdleCommand.self,
        ],
        defaultSubcommand: Run.self
    )
}

/// The transports the benchmark runs over.
enum Transport: String, Codable, Sendable, CaseIterable, ExpressibleByArgument {
    case ipc, tcp
}

/// What `--transport` accepts.
enum TransportChoice: String, ExpressibleByArgument, Sendable {
    case ipc, tcp, both
    var transports: [Transport] {
        switch self {
        case .ipc: return [.ipc]
        case .tcp: return [.tcp]
        case .both: return [.ipc, .tcp]
        }
    }
}

extension BenchSystem: ExpressibleByArgument {}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the benchmark (the default).")

    @Option(help: "ipc, tcp or both.") var transport: TransportChoice = .both
    @Option(help: "Lock-step latency samples per run.") var samples = 20_000
    @Option(help: "Lock-step steps before the samples.") var warmup = 2_000
    @Option(help: "Seconds of the throughput phase.") var seconds = 5.0
    @Option(
        help: ArgumentHelp(
            "Seconds of a paced phase after it: steps at half the throughput phase's rate, for the latency under "
                + "load (hand-written clients; 0: none)."
        )
    )
    var pacedSeconds = 0.0
    @Option(
        help: ArgumentHelp(
            "Write each paced step's arrival (ns, CLOCK_MONOTONIC) and latency (ns) to <prefix>-<run>.txt, one a line: "
                + "the shape of the late steps, to lay beside `perf sched` (docs/PERFORMANCE.md)."
        )
    )
    var pacedTrace: String?
    @Option(help: "Repetitions; the figures are medians over them.") var `repeat` = 3
    @Option(help: "Unanswered steps the stepper may have in flight in the throughput phase.") var window = 256
    @Option(
        help: "Idle sessions created (CREATE_SESSION) before flowd runs, comma-separated; each gets its own flowd runs."
    )
    var idleSessions = "0"
    @Option(help: "Screens the benchmark's session shows under the one its steps replace (a deep UI).")
    var uiScreens = 0
    @Option(
        help: ArgumentHelp(
            "Which systems to run, comma-separated: flowd, raw (the Swift relay), c-zmq (the C relay), dbus (the D-Bus "
                + "relay, skipped where it cannot build); both = flowd,raw; all = every one.",
            valueName: "systems"
        )
    )
    var systems = "all"
    @Option(
        help: ArgumentHelp(
            "How flowd's clients are written, comma-separated: wire (by hand, only the server measured), library "
                + "(FlowClient's StepperClient and PresenterClient).",
            valueName: "modes"
        )
    )
    var clients = "wire,library"
    @Flag(
        help: "Fail (exit status 1) unless every step arrived, in order, in every run and the report is well-formed."
    )
    var check = false
    @Option(help: .hidden) var loseStep = 0
    @Option(
        help: ArgumentHelp(
            "Also run flowd with a journal, once per fsync policy listed (never, interval, always; comma-separated).",
            valueName: "policies"
        )
    )
    var journal = ""
    @Option(help: "The interval of the fsync policy 'interval', in milliseconds.") var journalIntervalMs = 100
    @Option(help: "The journaled daemon's compact_bytes (compaction when the live journal grows past it).")
    var journalCompactBytes = JournalConfiguration(directory: "/").compactBytes
    @Option(help: "Where the journaled runs' state directories are made (each removed after its run).")
    var stateParent = "/tmp"
    @Flag(help: "Keep the journaled runs' state directories (to profile a recovery: flowd-bench recover --state-dir).")
    var keepState = false
    @Option(
        help: ArgumentHelp(
            "A command prefix for the flowd process, e.g. \"valgrind --tool=callgrind\" (space-separated).",
            valueName: "command"
        )
    )
    var daemonPrefix = ""
    @Option(
        help: ArgumentHelp(
            "A command prefix for the stepper and presenter processes, `{role}` in it replaced by `stepper` or "
                + "`presenter`, e.g. \"strace -f -c -o /tmp/{role}.strace\" (space-separated).",
            valueName: "command"
        )
    )
    var clientPrefix = ""
    @Option(
        help: ArgumentHelp(
            "A shell command run as `<command> start <pid>` when a run's throughput phase starts and `<command> end <pid>` "
                + "when it ends, with the server's pid: flowd's, a relay's (for D-Bus the relay's, not the broker's) "
                + "(callgrind-run.py: callgrind's counts zeroed, dumped).",
            valueName: "command"
        )
    )
    var phaseCommand = ""
    @Flag(help: "Print the results as JSON.") var json = false
    @Option(help: "Also write the JSON results to this file.") var jsonOut: String?

    func run() async throws {
        let idle = try idleSessions.split(separator: ",").map { part -> Int in
            guard let value = Int(part.filter { $0 != " " }), (0...1_000_000).contains(value) else {
                throw ValidationError("--idle-sessions takes numbers from 0 to 1000000")
            }
            return value
        }
        var chosen: [BenchSystem] = []
        for name in systems.split(separator: ",").map({ $0.filter { $0 != " " } }) {
            switch name {
            case "both": chosen += [.raw, .flowd]
            case "all": chosen += [.cZMQ, .raw, .flowd, .dbus]
            default:
                guard let system = BenchSystem(rawValue: name) else {
                    throw ValidationError("--systems takes flowd, raw, c-zmq, dbus, both and all, not \(name)")
                }
                chosen.append(system)
            }
        }
        chosen = BenchSystem.allCases.filter(chosen.contains)
        guard !chosen.isEmpty else { throw ValidationError("--systems is empty") }
        var modes: [ClientMode] = []
        for name in clients.split(separator: ",").map({ $0.filter { $0 != " " } }) {
            guard let mode = ClientMode(rawValue: name) else {
                throw ValidationError("--clients takes wire and library, not \(name)")
            }
            modes.append(mode)
        }
        let policies = journal.split(separator: ",").map { $0.filter { $0 != " " } }.filter { !$0.isEmpty }
        for policy in policies where FsyncPolicy(policy) == nil {
            throw ValidationError("--journal takes never, interval and always (comma-separated), not \(policy)")
        }
        guard journalIntervalMs > 0, journalCompactBytes > 0 else {
            throw ValidationError("--journal-interval-ms and --journal-compact-bytes must be positive")
        }
        if !policies.isEmpty, !chosen.contains(.flowd) {
            throw ValidationError("--journal runs flowd: --systems must include it")
        }
        guard (0...1_000_000).contains(uiScreens) else { throw ValidationError("--ui-screens: 0 to 1000000") }
        guard samples > 0, warmup >= 0, seconds > 0, `repeat` > 0, window > 0, window <= 900 else {
            throw ValidationError("--samples, --seconds, --repeat and --window (at most 900) must be positive")
        }
        var settings = Settings(
            transports: transport.transports, systems: chosen, samples: samples, warmup: warmup, seconds: seconds,
            repeats: `repeat`, window: window, idleSessions: idle.isEmpty ? [0] : idle,
            daemonPrefix: daemonPrefix.split(separator: " ").map(String.init),
            clientPrefix: clientPrefix.split(separator: " ").map(String.init),
            journal: policies.isEmpty
                ? nil
                : JournalSettings(
                    policies: policies, intervalMilliseconds: journalIntervalMs, compactBytes: journalCompactBytes,
                    parent: stateParent, fileSystem: fileSystemName(stateParent), keep: keepState
                )
        )
        settings.clients = modes.isEmpty ? [.wire] : modes
        settings.uiScreens = uiScreens
        settings.pacedSeconds = max(0, pacedSeconds)
        settings.pacedTrace = pacedTrace
        settings.phaseCommand = phaseCommand.isEmpty ? nil : phaseCommand
        settings.loseStep = loseStep
        Leftovers.shared.removeOnSignals()
        var orchestrator = Orchestrator(settings: settings)
        let report = try orchestrator.run(json: json, jsonOut: jsonOut)
        if check {
            let problems = SmokeCheck.problems(in: report, settings: orchestrator.settings)
            guard problems.isEmpty else {
                for problem in problems { note("check failed: \(problem)") }
                throw ExitCode.failure
            }
            note("check passed: every step arrived, in order, in every run; the report is well-formed")
        }
    }
}

struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "daemon", abstract: "(child) flowd with the benchmark flow.")
    @Option var control: String
    @Option var events: String
    @Option(help: "Journal the state in this directory.") var stateDir: String?
    @Option var fsync = "never"
    @Option var fsyncIntervalMs = 100
    @Option var compactBytes = JournalConfiguration(directory: "/").compactBytes
    @Option var uiScreens = 0
    @Option var maxSessions: Int?

    func run() async throws {
        let journal = try stateDir.map { directory in
            guard let policy = FsyncPolicy(fsync, intervalMilliseconds: fsyncIntervalMs) else {
                throw ValidationError("--fsync is never, interval or always")
            }
            return JournalConfiguration(directory: directory, fsync: policy, compactBytes: compactBytes)
        }
        try await runDaemon(
            control: control, events: events, journal: journal, uiScreens: uiScreens, maxSessions: maxSessions
        )
    }
}

struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover", abstract: "(child) times flowd's recovery of a state directory."
    )
    @Option var stateDir: String
    @Option(help: "The application the state was written by: bench or demo.") var app: BenchApp = .bench

    func run() throws { try runRecovery(stateDirectory: stateDir, application: app.application) }
}

struct CRelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "c-relay", abstract: "(child) the C relay on libzmq.")
    @Option var control: String
    @Option var commandExtra: Int
    @Option var okBytes: Int
    @Option var loseStep = 0

    func run() throws { try runCRelay(control: control, commandExtra: commandExtra, okBytes: okBytes, loseStep: loseStep) }
}

struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "relay", abstract: "(child) the raw ZeroMQ relay.")
    @Option var control: String
    @Option var commandExtra: Int
    @Option var okBytes: Int

    func run() throws { try runRelay(control: control, commandExtra: commandExtra, okBytes: okBytes) }
}

/// The options of the two client modes.
struct ClientOptions: ParsableArguments {
    @Option var system: BenchSystem
    @Option var control: String
    @Option var side: String
    @Option var warmup: Int
    @Option var samples: Int
    @Option var seconds: Double
    @Option var window: Int
    @Option var uiScreens = 0
    @Option var pacedSeconds = 0.0
    @Option var pacedTrace: String?
    @Flag(help: "Use FlowClient's StepperClient or PresenterClient (flowd only).") var library = false

    var plan: PhasePlan {
        PhasePlan(
            system: system, control: control, warmup: warmup, samples: samples, seconds: seconds, window: window,
            uiScreens: uiScreens, pacedSeconds: pacedSeconds, pacedTrace: pacedTrace
        )
    }
}

struct StepperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stepper", abstract: "(child) the stepper process.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        if options.library {
            try await runLibraryStepper(plan: options.plan, side: options.side)
        } else {
            try runStepper(plan: options.plan, side: options.side)
        }
    }
}

struct PresenterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "presenter", abstract: "(child) the presenter process.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        if options.library {
            try await runLibraryPresenter(plan: options.plan, side: options.side)
        } else {
            try runPresenter(plan: options.plan, side: options.side)
        }
    }
}
