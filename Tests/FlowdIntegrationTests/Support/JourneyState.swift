import Foundation

/// What the system shows at a point of a journey: the daemon's side (the default session's command sequence number
/// and its flow tree, `flowctl tree` text with every presentable's visibility) and the presenter's (its screens).
/// Two runs of the same journey that lost nothing and did nothing twice reach equal states.
struct JourneyState: Sendable, Hashable, CustomStringConvertible {
    var seq: Int
    var tree: String
    var screens: [String]

    var description: String {
        "seq \(seq)\ntree:\n\(tree)\nscreens:\n\(screens.joined(separator: "\n"))"
    }
}

/// One look at the system; a part is `nil` when it could not be read (flowd down, the presenter busy or dead).
struct JourneyObservation: Sendable {
    var seq: Int?
    var tree: String?
    var screens: [String]?
    /// The last sequence number the presenter applied (its last `command` or `snapshot` line).
    var presenterSeq: Int?

    /// The state, when every part was read.
    var state: JourneyState? {
        guard let seq, let tree, let screens else { return nil }
        return JourneyState(seq: seq, tree: tree, screens: screens)
    }

    /// Whether the presenter has applied every command the daemon sequenced.
    var presenterCaughtUp: Bool { seq != nil && seq == presenterSeq }
}

extension Presenter {
    /// The last sequence number applied: the last `command <seq>` or `snapshot <seq>` line's.
    var appliedSeq: Int? {
        for line in lines.reversed() where line.hasPrefix("command ") || line.hasPrefix("snapshot ") {
            return Int(line.split(separator: " ")[1])
        }
        return nil
    }

    /// The report entries it printed (`report <presentable> <state>` lines), each of which it sent flowd in a `REPORT`.
    var reportsPrinted: Int { lines.count { $0.hasPrefix("report ") } }

    /// Whether flowd refused one of its `REPORT`s (entries of presentables no longer in the UI: flowd counts none).
    var hadAReportRefused: Bool { process.stderr.lines.contains { $0.contains("flowd refused a REPORT") } }

    /// The answer (`ok …` or `error …`) to the input line sent when standard output had `from` lines, if any yet.
    func answer(to input: String, from: Int) -> String? {
        lines.dropFirst(from).first { $0.hasPrefix("ok \(input)") || $0.hasPrefix("error \(input)") }
    }
}

/// Reads ``JourneyObservation``s: `flowctl sessions` and `flowctl tree` (short timeouts: flowd may be down), and the
/// presenter's `screens` (one request at a time: the presenter reads its input in order, so a `screens` waits
/// behind a user action that waits for its answer).
///
/// Not `Sendable`: one driver uses it from one task.
final class JourneyObserver {
    private let system: JourneySystem
    /// The presenter a `screens` request is pending on, and where its answer starts.
    private var pendingScreens: (pid: Int32, from: Int)?

    init(system: JourneySystem) {
        self.system = system
    }

    func observe() async -> JourneyObservation {
        let cluster = system.cluster
        async let sessions = try? cluster.probe(["sessions", "--json", "--timeout", "2"])
        async let tree = try? cluster.probe(["tree", "--session", "default", "--timeout", "2"])
        let screens = await presenterScreens()
        var observation = JourneyObservation(screens: screens, presenterSeq: system.presenter.appliedSeq)
        if let sessions = await sessions, sessions.exit == .exited(0),
            let list = try? JSONSerialization.jsonObject(with: Data(sessions.output.utf8)) as? [[String: Any]],
            let session = list.first(where: { $0["id"] as? String == "default" })
        {
            observation.seq = session["seq"] as? Int
        }
        if let tree = await tree, tree.exit == .exited(0) { observation.tree = tree.output }
        return observation
    }

    /// The presenter's screens, or `nil` when it did not print them within a second (the request stays pending and
    /// a later call picks its answer up).
    private func presenterScreens() async -> [String]? {
        let presenter = system.presenter
        if pendingScreens?.pid != presenter.process.pid {
            guard presenter.process.exit == nil else { return nil }
            let from = presenter.process.stdout.count
            do { try presenter.process.send("screens") } catch { return nil }
            pendingScreens = (presenter.process.pid, from)
        }
        guard let from = pendingScreens?.from else { return nil }
        let log = presenter.process.stdout
        let end = try? await withDeadline("the presenter's screens", deadline: .seconds(1)) {
            let start = try await log.waitForLine(from: from) { $0 == "--- screens" }
            return (start, try await log.waitForLine(from: start) { $0 == "--- end" })
        }
        guard let (start, stop) = end else { return nil }
        pendingScreens = nil
        return Array(log.lines[(start + 1)..<stop])
    }

    /// `flowctl health --json`: the peers by role and the `steps_duplicate` counter (STEPs sent again that the
    /// daemon had carried out already), or `nil` when flowd does not answer.
    func health() async -> (peers: [String: Int], stepsDuplicate: Int)? {
        guard let health = await healthJSON() else { return nil }
        let peers = (health["peers"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:]
        return (peers, count(health, "steps_duplicate") ?? 0)
    }

    /// The report entries flowd applied (the `reports` counter), or `nil` when flowd does not answer.
    func reportsApplied() async -> Int? {
        await healthJSON().flatMap { count($0, "reports") }
    }

    private func healthJSON() async -> [String: Any]? {
        guard let result = try? await system.cluster.probe(["health", "--json", "--timeout", "2"]),
            result.exit == .exited(0)
        else { return nil }
        return try? Cluster.jsonObject(result.output)
    }
}

extension Cluster {
    /// Runs `flowctl` like ``flowctl(_:)`` but without keeping it in the cluster's list (a run polls hundreds of
    /// times; the failure report lists only the processes that matter). It ends by itself (`--timeout`); it is
    /// killed if it does not.
    func probe(_ arguments: [String]) async throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["FLOWD_RUNTIME_DIR"] = runtimeDirectory
        let process = try ManagedProcess(
            name: "flowctl-probe", executable: binDirectory.appendingPathComponent("flowctl"), arguments: arguments,
            environment: environment
        )
        defer { process.closeInput() }
        guard let exit = await process.waitForExit(within: generousDeadline) else {
            await process.kill9()
            throw HarnessError("flowctl \(arguments.joined(separator: " ")) did not end\n\(process.diagnostics)")
        }
        _ = try await withDeadline("flowctl's output to close") {
            _ = try? await process.stdout.waitForLine(from: Int.max) { _ in false }
            _ = try? await process.stderr.waitForLine(from: Int.max) { _ in false }
        }
        return CommandResult(exit: exit, stdout: process.stdout.lines, stderr: process.stderr.lines)
    }
}
