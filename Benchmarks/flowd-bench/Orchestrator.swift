import FlowCore
import FlowWire
import Foundation

/// Starts the processes of each run, collects their results and prints the report.
struct Orchestrator {
    var settings: Settings
    /// The D-Bus baseline's program, once built (`DBusRelay`).
    var dbusProgram: String?

    init(settings: Settings) { self.settings = settings }

    /// Runs every variant of every repetition, prints the report (or its JSON) and returns it.
    mutating func run(json: Bool, jsonOut: String? = nil) throws -> BenchReport {
        var machine = machine()
        let folder = try makeTemporaryFolder()
        Leftovers.shared.hold(path: folder)
        defer { Leftovers.shared.release(path: folder) }
        if settings.systems.contains(.dbus) {
            switch DBusRelay.build(in: folder) {
            case .success(let program): dbusProgram = program
            case .failure(let reason):
                note("skipped: the D-Bus relay (\(reason))")
                settings.systems.removeAll { $0 == .dbus }
            }
        }
        let sizes = BenchWire.messageSizes(stamp: monotonicNanoseconds())
        let messageSizes = MessageSizes(
            step: sizes.stepBytes, command: sizes.commandBytes, ok: sizes.okBytes,
            ack: BenchWire.ackBody(seq: 100_000).count
        )
        if !json {
            print(
                "flowd-bench: stepper → server → presenter, Flowd against relays of the same shape: "
                    + settings.systems.map(\.rawValue).joined(separator: ", ")
            )
            print("machine: \(machine.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))")
            print(
                "bodies: STEP \(messageSizes.step) B, COMMAND \(messageSizes.command) B, OK \(messageSizes.ok) B, "
                    + "ACK \(messageSizes.ack) B (+ frames FLOWD1 and the type)"
            )
            print(
                "settings: \(settings.warmup) warm-up + \(settings.samples) lock-step samples, "
                    + "\(settings.seconds) s flat out (window \(settings.window)), \(settings.repeats) repetitions; "
                    + "idle sessions \(settings.idleSessions.map(String.init).joined(separator: ",")), "
                    + "screens under the benchmark's \(settings.uiScreens)"
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
                // D-Bus runs on its unix socket only: it is left out of tcp.
                for variant in order where !(variant.system == .dbus && transport == .tcp) {
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
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            machine["loadavg_at_end"] = load.split(separator: " ").prefix(3).joined(separator: " ")
        }
        let report = makeReport(runs: runs, sizes: messageSizes, machine: machine)
        if let jsonOut {
            try Data(try encodeJSON(report, pretty: true).utf8).write(to: URL(fileURLWithPath: jsonOut))
        }
        if json {
            print(try encodeJSON(report, pretty: true))
        } else {
            printTable(report)
            print("\nload average at the end: \(machine["loadavg_at_end"] ?? "?")")
        }
        return report
    }

    /// Every configuration of a repetition, in the order of the first repetition: raw, flowd per number of idle
    /// sessions, then flowd with a journal per fsync policy and number of idle sessions.
    func variants() -> [Variant] {
        var variants: [Variant] = []
        for system in settings.systems {
            switch system {
            case .raw, .cZMQ, .dbus:
                variants.append(Variant(system: system, idleSessions: 0))
            case .flowd:
                for idle in settings.idleSessions { variants.append(Variant(system: .flowd, idleSessions: idle)) }
                if settings.clients.contains(.library) {
                    variants.append(
                        Variant(system: .flowd, idleSessions: settings.idleSessions.min() ?? 0, clients: .library)
                    )
                }
                // Journaled at every idle count too: a restart with that many sessions journaled is timed.
                for policy in settings.journal?.policies ?? [] {
                    for idle in settings.idleSessions {
                        variants.append(Variant(system: .flowd, idleSessions: idle, journal: policy))
                    }
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
                    Leftovers.shared.release(path: stateDirectory)
                }
            }
        }
        var children: [Child] = []
        defer {
            // Clients end by themselves; the server is ended by its pid.
            for child in children.reversed() { child.finish(grace: child.name == "stepper" || child.name == "presenter" ? 5 : 0) }
        }
        let servers = try startServers(
            variant: variant, endpoint: endpoint, sizes: sizes, folder: folder, number: number,
            stateDirectory: &stateDirectory
        )
        children += servers.children
        let server = servers.children[0]
        let control = servers.control
        if idleSessions > 0 { try createSessions(idleSessions, at: control) }

        let common = [
            "--system", system.rawValue, "--control", control, "--warmup", "\(settings.warmup)",
            "--samples", "\(settings.samples)", "--seconds", "\(settings.seconds)", "--window", "\(settings.window)",
            "--ui-screens", "\(settings.uiScreens)", "--paced-seconds", "\(settings.pacedSeconds)",
        ] + (variant.clients == .library ? ["--library"] : [])
            + (settings.pacedTrace.map { ["--paced-trace", "\($0)-\(number).txt"] } ?? [])
        let clientExecutable = system == .dbus ? dbusProgram : nil
        func prefix(_ role: String) -> [String] {
            settings.clientPrefix.map { $0.replacingOccurrences(of: "{role}", with: role) }
        }
        let presenter = try Child(
            "presenter", executable: clientExecutable, arguments: ["presenter", "--side", endpoint("side")] + common,
            prefix: prefix("presenter")
        )
        children.append(presenter)
        let side = try presenter.expect("READY ", timeout: 60)
        let stepper = try Child(
            "stepper", executable: clientExecutable, arguments: ["stepper", "--side", side] + common,
            prefix: prefix("stepper")
        )
        children.append(stepper)
        _ = try stepper.expect("READY", timeout: 60)
        // A step may wait for an fdatasync (fsync=always): allow 20 ms each.
        let perStepTimeout = variant.journal == nil ? 0.002 : 0.02
        let phaseTimeout = 120 + Double(settings.warmup + settings.samples) * perStepTimeout
        _ = try stepper.expect("PHASE throughput-start", timeout: phaseTimeout)
        try runPhaseCommand("start", server: server)
        // The server's CPU is every server process's (for D-Bus the broker's and the relay's).
        let processes = servers.children + [stepper, presenter]
        let before = processes.map { cpuSeconds(pid: $0.pid) }
        let writtenBefore = procIO(pid: server.pid, field: "write_bytes")
        let started = monotonicNanoseconds()
        _ = try stepper.expect("PHASE throughput-end", timeout: settings.seconds * 2 + 60)
        try runPhaseCommand("end", server: server)
        let after = processes.map { cpuSeconds(pid: $0.pid) }
        let writtenAfter = procIO(pid: server.pid, field: "write_bytes")
        let resident = residentBytes(pid: server.pid)
        let wall = Double(monotonicNanoseconds() - started) / 1e9
        let timeout =
            120 + Double(settings.warmup + settings.samples) * perStepTimeout + (settings.seconds + settings.pacedSeconds) * 2
        let stepperResult = try decodeJSON(StepperResult.self, try stepper.expect("RESULT ", timeout: timeout))
        let presenterResult = try decodeJSON(PresenterResult.self, try presenter.expect("RESULT ", timeout: 60))
        func perStep(_ indices: Range<Int>) -> Double {
            guard stepperResult.throughputSteps > 0 else { return 0 }
            return indices.reduce(0) { $0 + after[$1] - before[$1] } * 1e6 / Double(stepperResult.throughputSteps)
        }
        let serverCount = servers.children.count
        let serverSeconds = (0..<serverCount).reduce(0) { $0 + after[$1] - before[$1] }
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
            clients: variant.clients, presenter: presenterResult, stepper: stepperResult,
            cpu: CPUUsage(
                serverMicrosPerStep: perStep(0..<serverCount),
                stepperMicrosPerStep: perStep(serverCount..<serverCount + 1),
                presenterMicrosPerStep: perStep(serverCount + 1..<serverCount + 2),
                serverCores: wall > 0 ? serverSeconds / wall : 0
            ),
            serverResidentBytes: resident, journal: journalResult
        )
    }

    /// Runs `--phase-command` with the phase and the server's pid, and waits for it.
    private func runPhaseCommand(_ phase: String, server: Child) throws {
        guard let command = settings.phaseCommand else { return }
        guard runShell("\(command) \(phase) \(server.pid) >&2 && echo done", quiet: false) == "done" else {
            throw BenchError("--phase-command failed at the throughput phase's \(phase)")
        }
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

    /// Creates idle sessions as an operator would (`CREATE_SESSION`), up to 256 requests in flight; each gets the
    /// benchmark flow without its remote stepper (``BenchApplication``).
    private func createSessions(_ count: Int, at control: String) throws {
        let client = try BenchClient(system: .flowd, endpoint: control)
        defer { client.close() }
        try client.hello(role: .operator, name: "bench-operator")
        var created = 0
        var sent = 0
        let started = monotonicNanoseconds()
        while created < count {
            while sent < count, sent - created < 256 {
                sent += 1
                try client.send(.createSession(SessionRequest(req: client.makeReq(), session: "idle-\(sent)")))
            }
            _ = try client.awaitDecoded(what: "OK to CREATE_SESSION") { message in
                if case .ok = message { return true }
                return nil
            }
            created += 1
        }
        if count >= 10_000 {
            note(String(format: "created %d idle sessions in %.1f s", count, Double(monotonicNanoseconds() - started) / 1e9))
        }
    }

    private func makeTemporaryFolder() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/flowd-bench-XXXXXX").utf8CString)
        guard let pointer = mkdtemp(&template) else { throw BenchError("mkdtemp failed") }
        return String(cString: pointer)
    }
}
