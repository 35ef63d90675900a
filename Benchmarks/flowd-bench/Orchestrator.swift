import FlowCore
import FlowWire
import Foundation

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
    func variants() -> [Variant] {
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
}
