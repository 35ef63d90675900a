#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import MovieDemo

/// The application a child runs: the benchmark's (``BenchApplication``) or the movie demo's.
enum BenchApp: String, ExpressibleByArgument, Sendable {
    case bench, demo

    var application: any FlowApplication {
        switch self {
        case .bench: BenchApplication()
        case .demo: MovieDemoApplication()
        }
    }
}

/// The `idle` child: what idle sessions cost a daemon, measured in this process (docs/PERFORMANCE.md, issue 11).
///
/// Creates `--sessions` sessions of the application in a ``DaemonCore`` the way an operator does (`CREATE_SESSION`,
/// after 500 to warm up, ended before the snapshot) and prints the resident memory per session, the sessions created
/// per second and the CPU time per creation (heaptrack on this command says what the memory is made of). With
/// `--state-dir` it also compacts them into a snapshot there as flowd does (timed: the compaction
/// stall), for `flowd-bench recover --app … --state-dir` to time a restart. One measurement per process: memory
/// freed by an earlier one would be reused and hide the cost.
struct IdleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle", abstract: "Memory per idle session and creation rate, in this process."
    )
    @Option(help: "bench or demo.") var app: BenchApp = .demo
    @Option var sessions = 100_000
    @Flag(help: "Journal the sessions (records kept in memory for the next snapshot, as flowd does).") var journal = false
    @Option(help: "Write the sessions' snapshot into this new state directory (implies --journal).") var stateDir: String?
    @Option(
        help: ArgumentHelp(
            "With --app bench: screens the default session shows under its own (as --ui-screens), changed by a deep "
                + "link before the compaction so that it saves that session's state (the compaction of a deep UI)."))
    var uiScreens = 0
    @Flag(
        help: ArgumentHelp(
            "With --state-dir: a deep link into each idle session before the compaction, so that the snapshot saves "
                + "each as a `state` record (a restart then keeps them pending with their bytes)."))
    var saved = false
    @Option(
        help: ArgumentHelp(
            "daemon.hibernate_after_s (0: never, the default here). With it the clock advances 100 ms per 100 "
                + "sessions created and ticks, as a long-running daemon sees them: sessions hibernate as they come, "
                + "and the memory per session is that of hibernated ones; then 1 000 of them are made again by a "
                + "first use (cpu_us_per_wake)."))
    var hibernateAfterS = 0
    @Flag(
        help: ArgumentHelp(
            "A deep link into each session right after its creation (the demo's settingsAreRequired, the bench's "
                + "tick): sessions changed since their creation, which hibernate as their encoded state."))
    var changed = false
    @Flag(
        help: ArgumentHelp(
            "With --hibernate-after-s: no tick while the sessions are created, so that all hibernate in one burst "
                + "after; prints the resident memory made, hibernated, and after one malloc_trim(0) (its time too)."))
    var burst = false

    func run() throws {
        let journaling = journal || stateDir != nil
        let logger = Logger(label: "flowd-bench.idle", factory: { _ in SwiftLogNoOpLogHandler() })
        let codec = WireCodec()
        var configuration = DaemonConfiguration()
        configuration.maxSessions = sessions + 1000
        configuration.hibernateAfterS = hibernateAfterS
        var core = DaemonCore(
            application: app == .bench ? BenchApplication(uiScreens: uiScreens) : app.application, configuration: configuration, daemonID: "bench-idle", logger: logger, now: 0,
            journaling: journaling
        )
        _ = core.start(now: 0)
        let operatorPeer = PeerAddress([7])
        var req: UInt64 = 0
        var now: UInt64 = 0
        func send(_ message: ClientMessage) {
            _ = core.handle(.message(from: operatorPeer, frames: codec.encode(message)), now: now)
        }
        func create(_ session: String) {
            req += 1
            send(.createSession(SessionRequest(req: req, session: session)))
        }
        send(.hello(Hello(req: 0, role: .operator, name: "idle", instance: "idle", heartbeatMs: 60_000, serves: [])))
        for index in 0..<500 { create("warm-\(index)") }
        _ = core.takeJournal()
        let before = residentBytes()
        let started = monotonicNanoseconds()
        let startedCPU = processCPUNanoseconds()
        for index in 0..<sessions {
            create(String(format: "idle-%07d", index))
            if changed {
                req += 1
                let step = app == .demo ? Step("settingsAreRequired") : Step("tick", payload: 1)
                send(.deepLink(DeepLinkRequest(req: req, session: String(format: "idle-%07d", index), step: step)))
            }
            if index % 100 == 0 { _ = core.takeJournal() }  // the I/O thread takes the records as they come
            if hibernateAfterS > 0, !burst, index % 100 == 99 {
                now += 100
                _ = core.handle(.tick, now: now)
            }
        }
        let residentMade = residentBytes()
        if hibernateAfterS > 0 {
            now += UInt64(hibernateAfterS) * 1000
            // A tick hibernates 32 sessions at most (DaemonCore.hibernatedPerTick): the loop ticks again at once
            // while some are due, as flowd's does.
            var hibernated = -1
            while core.hibernatedSessionCount > hibernated {
                hibernated = core.hibernatedSessionCount
                _ = core.handle(.tick, now: now)
                now += 1
            }
        }
        _ = core.takeJournal()
        let seconds = Double(monotonicNanoseconds() - started) / 1e9
        // CPU time, not the wall clock: what the load of other processes does not move.
        let cpuMicroseconds = Double(processCPUNanoseconds() - startedCPU) / 1e3
        let after = residentBytes()
        var burstFigures = ""
        if burst {
            // What glibc keeps of the memory the burst freed, and what malloc_trim gives back (docs/LIMITS.md).
            let trimming = monotonicNanoseconds()
            // Not in Swift's Glibc module (malloc.h): found by name.
            typealias MallocTrim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(nil, "malloc_trim") { _ = unsafeBitCast(symbol, to: MallocTrim.self)(0) }
            let trimmed = Double(monotonicNanoseconds() - trimming) / 1e6
            burstFigures = String(
                format: " rss_made_mb=%d rss_hibernated_mb=%d rss_trimmed_mb=%d malloc_trim_ms=%.1f",
                residentMade >> 20, after >> 20, residentBytes() >> 20, trimmed)
        }
        guard core.sessionCount == sessions + 501 else {
            throw BenchError("\(core.sessionCount) sessions, not \(sessions + 501)")
        }
        let hibernated = core.hibernatedSessionCount
        var line =
            "IDLE app=\(app.rawValue) journal=\(journaling) sessions=\(sessions) changed=\(changed) "
            + "resident_per_session=\((after - before) / sessions) "
            + "creates_per_s=\(Int(Double(sessions) / seconds))"
            + String(format: " cpu_us_per_create=%.1f", cpuMicroseconds / Double(sessions)) + burstFigures
        // HEALTH's session_usage_max: a walk over every session, made or hibernated (docs/LIMITS.md). Best of five.
        var walk = Int.max
        var largest = SessionUsage.zero
        for _ in 0..<5 {
            let walking = monotonicNanoseconds()
            largest = core.sessionUsageMax
            walk = min(walk, Int(monotonicNanoseconds() - walking))
        }
        line += String(format: " health_walk_ms=%.2f", Double(walk) / 1e6) + " usage_max_screens=\(largest.screens)"
        if hibernateAfterS > 0 {
            // A first use of hibernated sessions: what making one again costs (its `seq` read, nothing else).
            let woken = min(1000, sessions)
            let waking = processCPUNanoseconds()
            for index in 0..<woken { _ = core.seq(of: String(format: "idle-%07d", sessions - 1 - index)) }
            let wakeMicroseconds = Double(processCPUNanoseconds() - waking) / 1e3
            line +=
                // Of every session in the core: the measured ones, the 500 warm-up ones and the default one.
                " hibernate_after_s=\(hibernateAfterS) hibernated=\(hibernated) of_sessions=\(core.sessionCount)"
                + core.counters.sessionsNotHibernated.keys.sorted().map {
                    " not_hibernated_\($0)=\(core.counters.sessionsNotHibernated[$0]!)"
                }.joined()
                + String(format: " cpu_us_per_wake=%.1f", wakeMicroseconds / Double(woken))
        }
        // What one of them holds, for the breakdown by type.
        let nodes = core.tree(of: "idle-0000000")?.allNodes ?? []
        line +=
            " flows=\(nodes.count) attachments=\(nodes.reduce(0) { $0 + $1.steppers.count })"
            + " screens=\(core.ui(of: "idle-0000000")?.count ?? 0) commands=\(core.seq(of: "idle-0000000") ?? 0)"
        if uiScreens > 0 {
            req += 1
            send(.deepLink(DeepLinkRequest(req: req, session: BenchWire.session, step: Step("tick", payload: 1))))
            _ = core.takeJournal()
            line += " default_screens=\(core.ui(of: BenchWire.session)?.count ?? 0)"
            // What JSONEncoder takes for that UI model alone (compactions encoded the whole state with it before).
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let encoding = monotonicNanoseconds()
            let encoded = try encoder.encode(core.ui(of: BenchWire.session))
            line += String(
                format: " ui_jsonencoder_s=%.3f (%d bytes)", Double(monotonicNanoseconds() - encoding) / 1e9, encoded.count)
        }
        if let stateDir {
            // The snapshot holds the measured sessions and the default one: the warm-up sessions end first.
            for index in 0..<500 {
                req += 1
                send(.endSession(SessionRequest(req: req, session: "warm-\(index)")))
            }
            if saved {
                for index in 0..<sessions {
                    req += 1
                    let session = String(format: "idle-%07d", index)
                    send(.deepLink(DeepLinkRequest(req: req, session: session, step: Step("tick", payload: 1))))
                    if index % 100 == 0 { _ = core.takeJournal() }
                }
            }
            _ = core.takeJournal()
            line += " snapshot_sessions=\(core.sessionCount)"
            let store = try JournalStore(
                configuration: JournalConfiguration(directory: stateDir, fsync: .never), logger: logger
            )
            defer { store.close() }
            _ = try store.load()
            let compacting = monotonicNanoseconds()
            let compaction = core.compactJournal()
            let payload = core.journalSnapshotPayload
            let built = monotonicNanoseconds()
            try store.writeSnapshot(payload)
            let written = monotonicNanoseconds()
            line +=
                " saved=\(compaction.saved) unchanged=\(compaction.unchanged) snapshot_bytes=\(payload.count)"
                + String(
                    format: " compaction_s=%.3f (payload %.3f + write %.3f)", Double(written - compacting) / 1e9,
                    Double(built - compacting) / 1e9, Double(written - built) / 1e9)
        }
        emit(line)
    }
}

/// `VmRSS` of this process in bytes.
private func residentBytes() -> Int { residentBytes(pid: getpid()) }
