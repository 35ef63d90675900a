#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Synchronization

/// What a run leaves on disk and running until it ends: its temporary folders (sockets, state directories) and its
/// child processes. An interrupted run (SIGINT, SIGTERM) ends the children and removes the folders before it exits,
/// as a normal end or a thrown error does through the owners' `defer`s; only SIGKILL leaves them behind.
final class Leftovers: Sendable {
    static let shared = Leftovers()

    private struct Held {
        var paths: Set<String> = []
        var pids: Set<Int32> = []
    }

    private let held = Mutex(Held())
    /// The signal sources, kept for the life of the process once ``removeOnSignals()`` ran.
    private let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Removes `path` (a folder this run made) if the run is interrupted.
    func hold(path: String) { held.withLock { _ = $0.paths.insert(path) } }

    /// Removes `path` now and stops holding it.
    func release(path: String) {
        held.withLock { _ = $0.paths.remove(path) }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Ends the child `pid` (SIGTERM) if the run is interrupted.
    func hold(pid: Int32) { held.withLock { _ = $0.pids.insert(pid) } }

    func release(pid: Int32) { held.withLock { _ = $0.pids.remove(pid) } }

    /// From now on SIGINT and SIGTERM end the children, remove the folders and exit with 128 + the signal.
    func removeOnSignals() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                // The default action would end the process before the handler runs.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [self] in interrupted(by: number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    private func interrupted(by number: Int32) -> Never {
        let (paths, pids) = held.withLock { ($0.paths, $0.pids) }
        for pid in pids { kill(pid, SIGTERM) }
        // A daemon child still shutting down would make its state directory again: the folders go once every child
        // has ended (SIGKILL after 10 s, as ``Child/finish(grace:)`` does).
        func running() -> [Int32] { pids.filter { kill($0, 0) == 0 && !Self.isZombie($0) } }
        let deadline = monotonicNanoseconds() + 10_000_000_000
        while !running().isEmpty, monotonicNanoseconds() < deadline { usleep(10_000) }
        for pid in running() { kill(pid, SIGKILL) }
        while !running().isEmpty { usleep(10_000) }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
        note("flowd-bench: interrupted (signal \(number)); \(pids.count) children ended, \(paths.count) folders removed")
        exit(128 + number)
    }

    /// Whether `pid` has exited and waits to be reaped (`kill(pid, 0)` still succeeds for it).
    private static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].dropFirst().first == "Z"
    }
}
